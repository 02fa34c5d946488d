/**
 * A build's log limit as the control plane gives it to the engine: the runtime's
 * `runtimeScheduler.buildLogLimit`, else the server's setting (64 MiB by default), with the
 * bytes already stored for an engine that starts again; and the engine's `log-limited` event
 * kept on the build as an annotation, even on a build whose steps filled its annotations.
 * @module
 */
import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import { LIMITS } from '@sluice/protocol';
import {
  LOCAL_RUNTIME,
  seedPipeline,
  startEngine,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);
const at = '2024-01-01T00:00:00.000Z';

databases.test(
  "the engine gets the runtime's log limit, else the server's, and what is stored already",
  async (database) => {
    const t = await startTestServer(database, { buildLogLimitBytes: 1000 });
    try {
      const pipeline = await seedPipeline(t);
      const { engine } = await startEngine(t, pipeline.id);
      const first = await engine.call('engineBuild');
      assert.deepEqual([first.logLimitBytes, first.logBytesStored, first.logNextSeq], [1000, 0, 0]);
      const lines = ['é'.repeat(50), 'x'.repeat(100)].map((line) => ({
        step: 'build',
        stream: 'stdout' as const,
        line,
        at,
      }));
      await engine.call('engineLog', { body: { seq: 0, lines } });
      const again = await engine.call('engineBuild');
      assert.deepEqual([again.logBytesStored, again.logNextSeq], [200, 1], 'bytes of UTF-8');

      await t.admin.call('patchRuntimeEnvironment', {
        params: { name: 'local' },
        body: { patch: { runtimeScheduler: { buildLogLimit: '10Ki' } } },
      });
      assert.equal((await engine.call('engineBuild')).logLimitBytes, 10 * 1024);

      const refused = await t.admin
        .call('patchRuntimeEnvironment', {
          params: { name: 'local' },
          body: { patch: { runtimeScheduler: { buildLogLimit: '64MB' } } },
        })
        .then(
          () => undefined,
          (err: Error) => err,
        );
      assert.match(String(refused?.message), /buildLogLimit/);
      assert.match(JSON.stringify(refused), /64Mi/, 'the refusal suggests the quantity meant');
    } finally {
      await t.close();
    }
  },
);

databases.test('64 MiB is the default limit', async (database) => {
  const t = await startTestServer(database);
  try {
    const pipeline = await seedPipeline(t, { runtime: { name: 'local', spec: LOCAL_RUNTIME } });
    const { engine } = await startEngine(t, pipeline.id);
    assert.equal((await engine.call('engineBuild')).logLimitBytes, 64 * 1024 * 1024);
  } finally {
    await t.close();
  }
});

databases.test(
  "the engine's log-limited event is kept on the build, even one whose annotations are full",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const { build, engine } = await startEngine(t, pipeline.id);
      const full = Object.fromEntries(
        Array.from({ length: LIMITS.annotationsPerEntity }, (_, i) => [`a${i}`, i]),
      );
      await engine.call('engineEvents', {
        body: {
          events: [
            { type: 'annotations', step: 'build', changes: [{ entity: 'build', set: full }], at },
            { type: 'log-limited', step: 'build', limitBytes: 64 * 1024 * 1024, at },
          ],
        },
      });
      const got = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.equal(
        got.annotations['sluice.log-limit'],
        "The build log reached its limit of 64 MiB during step build: later lines are not stored, the steps go on (runtimeScheduler.buildLogLimit, else the server's SLUICE_BUILD_LOG_LIMIT_BYTES)",
      );
      assert.equal(Object.keys(got.annotations).length, LIMITS.annotationsPerEntity + 1);
      // No later step takes the note away: names under `sluice.` are the control plane's.
      const unset = {
        type: 'annotations' as const,
        step: 'hide',
        changes: [{ entity: 'build' as const, set: {}, unset: ['sluice.log-limit'] }],
        at,
      };
      await assert.rejects(
        engine.call('engineEvents', { body: { events: [unset] } }),
        (err: unknown) =>
          isSluiceError(err) &&
          err.code === 'SLUICE_BUILD_ANNOTATIONS_INVALID' &&
          /sluice\.log-limit: names starting with "sluice\."/.test(err.message),
      );
      const after = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.equal(after.annotations['sluice.log-limit'], got.annotations['sluice.log-limit']);
    } finally {
      await t.close();
    }
  },
);
