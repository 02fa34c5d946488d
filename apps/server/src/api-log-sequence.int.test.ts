/**
 * The engine's log chunks are stored once and in order: a resent chunk is ignored (not stored
 * twice), a chunk after a gap is refused with 409 naming the chunk to resend from, and the
 * engine's build says where a restarted engine goes on numbering.
 * @module
 */
import assert from 'node:assert/strict';
import { ConflictError } from '@sluice/errors';
import { useTestDatabases } from '@sluice/db/testing';
import type { SluiceClient } from '@sluice/protocol';
import {
  seedPipeline,
  startEngine,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';

const databases = useTestDatabases();
const at = '2024-01-01T00:00:00.000Z';

function chunk(seq: number, ...texts: string[]) {
  return {
    seq,
    lines: texts.map((line) => ({ step: 'build', stream: 'stdout' as const, line, at })),
  };
}

async function post(engine: SluiceClient, body: ReturnType<typeof chunk>): Promise<unknown> {
  try {
    await engine.call('engineLog', { body });
    return 'stored';
  } catch (err) {
    return err;
  }
}

databases.test(
  'a resent log chunk is stored once, a chunk after a gap is refused with the seq to resend from',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const { build, engine } = await startEngine(t, pipeline.id);
      assert.equal((await engine.call('engineBuild')).logNextSeq, 0);

      assert.equal(await post(engine, chunk(0, 'one', 'two')), 'stored');
      // The answer to this post was lost: the engine sends it again.
      assert.equal(await post(engine, chunk(0, 'one', 'two')), 'stored');
      const refused = await post(engine, chunk(2, 'four'));
      assert.ok(refused instanceof ConflictError, String(refused));
      assert.equal(refused.code, 'SLUICE_LOG_SEQUENCE_GAP');
      assert.deepEqual(refused.details?.details, { expectedSeq: 1 });
      assert.match(refused.message, /Log chunk 2 .* the next chunk expected is 1/);

      // The engine resends from the chunk the server named.
      assert.equal(await post(engine, chunk(1, 'three')), 'stored');
      assert.equal(await post(engine, chunk(2, 'four')), 'stored');
      assert.equal(await post(engine, chunk(1, 'three')), 'stored');
      assert.equal((await engine.call('engineBuild')).logNextSeq, 3);

      const text = await (await t.admin.raw('buildLog', { params: { buildId: build.id } })).text();
      assert.equal(text, '[build] one\n[build] two\n[build] three\n[build] four\n');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test('copies of one chunk posted at once store it once', async (database) => {
  const t = await startTestServer(database);
  try {
    const pipeline = await seedPipeline(t);
    const { build, engine } = await startEngine(t, pipeline.id);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => post(engine, chunk(0, 'only once'))),
    );
    assert.deepEqual(results, Array(8).fill('stored'));
    const text = await (await t.admin.raw('buildLog', { params: { buildId: build.id } })).text();
    assert.equal(text, '[build] only once\n');
  } finally {
    await t.close();
  }
});

databases.test(
  "one step's log is downloaded alone, as its lines were printed",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const { build, engine } = await startEngine(t, pipeline.id);
      const line = (step: string | null, text: string) => ({
        step,
        stream: 'stdout' as const,
        line: text,
        at,
      });
      await engine.call('engineLog', {
        body: {
          seq: 0,
          lines: [line('build', 'compiling'), line(null, 'engine says'), line('test', 'ok 1')],
        },
      });
      await engine.call('engineLog', { body: { seq: 1, lines: [line('build', '[build] done')] } });
      const text = async (query: { step?: string }) =>
        (await t.admin.raw('buildLog', { params: { buildId: build.id }, query })).text();
      assert.equal(await text({ step: 'build' }), 'compiling\n[build] done\n');
      assert.equal(await text({ step: 'test' }), 'ok 1\n');
      assert.equal(await text({ step: 'deploy' }), '');
      assert.equal(
        await text({}),
        '[build] compiling\nengine says\n[test] ok 1\n[build] [build] done\n',
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);
