import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { LIMITS } from '@sluice/protocol';
import type { AnnotationChange, SluiceClient } from '@sluice/protocol';
import {
  seedPipeline,
  startEngine,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

const AT = '2026-11-27T05:00:00.000Z';

function annotate(engine: SluiceClient, changes: AnnotationChange[]) {
  return engine.call('engineEvents', {
    body: { events: [{ type: 'annotations', step: 'test', changes, at: AT }] },
  });
}

databases.test(
  "an engine's annotations events are kept on the build, set and unset in order, images apart; over-long, too many and NUL are refused with 400 and change nothing",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const { build, engine } = await startEngine(t, pipeline.id);
      assert.deepEqual([build.annotations, build.imageAnnotations], [{}, {}]);

      await annotate(engine, [
        { entity: 'build', set: { tested: true, by: 'alice', flaky: null, old: 1 }, unset: [] },
        { entity: 'image', image: 'sha256:abc', set: { CF_QUALITY: false }, unset: [] },
      ]);
      await annotate(engine, [{ entity: 'build', set: { ratio: 0.5 }, unset: ['old'] }]);
      const kept = { tested: true, by: 'alice', flaky: null, ratio: 0.5 };
      const got = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.deepEqual(got.annotations, kept);
      assert.deepEqual(got.imageAnnotations, { 'sha256:abc': { CF_QUALITY: false } });
      const listed = await t.admin.call('listBuilds', { query: {} });
      assert.deepEqual(listed.items.find((b) => b.id === build.id)?.annotations, kept);

      const refusals: [string, AnnotationChange[], RegExp][] = [
        [
          'a value over the limit',
          [{ entity: 'build', set: { v: 'x'.repeat(LIMITS.annotationValue + 1) }, unset: [] }],
          /changes\.0\.set\.v/,
        ],
        [
          'a key over the limit',
          [{ entity: 'build', set: { ['k'.repeat(LIMITS.annotationKey + 1)]: 1 }, unset: [] }],
          /changes\.0\.set/,
        ],
        ['a NUL in a value', [{ entity: 'build', set: { v: 'a\u0000b' }, unset: [] }], /NUL/],
        ['a NUL in a key', [{ entity: 'build', set: { ['k\u0000']: 1 }, unset: [] }], /NUL/],
        [
          'more names than an entity may hold',
          [
            {
              entity: 'build',
              set: Object.fromEntries(
                Array.from({ length: LIMITS.annotationsPerEntity }, (_, i) => [`n${i}`, i]),
              ),
              unset: [],
            },
          ],
          /The build would hold 104 annotations, more than 100/,
        ],
        [
          'an image change without its image',
          [{ entity: 'image', set: { a: 1 }, unset: [] }],
          /names no image/,
        ],
      ];
      for (const [what, changes, message] of refusals) {
        await assert.rejects(
          annotate(engine, changes),
          (err: Error & { details?: { status?: unknown } }) => {
            assert.match(err.message, message, what);
            assert.equal(err.details?.status, 400, what);
            return true;
          },
        );
      }
      const after = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.deepEqual(
        [after.annotations, after.imageAnnotations],
        [got.annotations, got.imageAnnotations],
      );
    } finally {
      await t.close();
    }
  },
);
