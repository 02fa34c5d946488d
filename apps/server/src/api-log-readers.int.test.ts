/**
 * A build's log readers cost the server what they read, not what the log holds (issue 33): an
 * 8 MiB log and readers that do not read hold little of its memory while it goes on answering;
 * readers of a live build cost no database read on the server that stored a chunk and one on
 * another server process (which hears of it), whatever their number; a reader that
 * falls behind the live window is told to resume, and resumes with no chunk lost or repeated;
 * `GET …/log?from=` reads a range and says where the next one starts.
 * @module
 */
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { IncomingMessage } from 'node:http';
import { useTestDatabases } from '@sluice/db/testing';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import type { Database } from '@sluice/db';
import type { LogLine, SluiceClient } from '@sluice/protocol';
import { waitFor } from '@sluice/testkit';
import {
  ADMIN_TOKEN,
  seedPipeline,
  startEngine,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';
import { SseReader } from './log-readers.test-support.js';

const databases = useTestDatabases();
const MiB = 1024 * 1024;
const at = '2024-01-01T00:00:00.000Z';

/** `count` lines of `width` characters, each starting with its chunk and place. */
function lines(seq: number, count: number, width = 128, step = 'build'): LogLine[] {
  return Array.from({ length: count }, (_, i) => {
    const head = `${seq}:${i} `;
    return { step, stream: 'stdout', line: head.padEnd(width, 'x'), at };
  });
}

async function post(engine: SluiceClient, seq: number, body: LogLine[]): Promise<void> {
  await engine.call('engineLog', { body: { seq, lines: body } });
}

async function finishBuild(engine: SluiceClient): Promise<void> {
  await engine.call('engineEvents', {
    body: { events: [{ type: 'build-finished', status: 'success', at }] },
  });
}

/** `GET …/log` with its answer left unread until `read` is called. */
function download(url: string, buildId: string) {
  return new Promise<{ res: IncomingMessage; read: () => Promise<string> }>((resolve, reject) => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    get(`${url}/api/v1/builds/${buildId}/log`, { headers }, (res) => {
      res.pause();
      const read = async () => {
        res.setEncoding('utf8');
        let text = '';
        for await (const part of res) text += part as string;
        return text;
      };
      resolve({ res, read });
    }).on('error', reject);
  });
}

/** The server's database with every query that reads `build_log_chunks` counted. */
function countLogReads(database: Database) {
  let reads = 0;
  const plugin: Parameters<Database['db']['withPlugin']>[0] = {
    transformQuery({ node }) {
      const text = JSON.stringify(node);
      if (text.includes('build_log_chunks') && !/insert into|InsertQueryNode/i.test(text)) reads++;
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  const counted: Database = {
    db: database.db.withPlugin(plugin),
    passes: database.passes.withPlugin(plugin),
    kind: database.kind,
    poolStats: () => database.poolStats(),
    subscribe: (channel, handler) => database.subscribe(channel, handler),
    close: () => database.close(),
  };
  return { counted, reads: () => reads, reset: () => (reads = 0) };
}

/**
 * What the process holds after a full collection: its resident memory, and the memory its
 * objects and buffers take (heap used plus external), in MiB. Garbage does not count: V8 frees
 * it when it likes, and what the readers must not do is hold memory.
 */
function heldMemory(): { rss: number; held: number } {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const usage = process.memoryUsage();
  return { rss: usage.rss / MiB, held: (usage.heapUsed + usage.external) / MiB };
}

const seqs = (reader: SseReader) => reader.chunks().map((c) => c.seq);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

databases.test(
  'an 8 MiB log and 10 stream readers and 5 downloads that do not read hold little memory, and the server answers',
  async (database) => {
    const t = await startTestServer(database);
    const readers: SseReader[] = [];
    const downloads: IncomingMessage[] = [];
    try {
      const pipeline = await seedPipeline(t);
      const { build, engine } = await startEngine(t, pipeline.id);
      // 32 chunks of 2,048 lines of 128 characters: 8 MiB.
      for (let seq = 0; seq < 32; seq++) await post(engine, seq, lines(seq, 2048));
      const before = heldMemory();

      for (let i = 0; i < 10; i++)
        readers.push(await SseReader.open(t.url, build.id, { paused: true }));
      const texts = [];
      for (let i = 0; i < 5; i++) {
        const d = await download(t.url, build.id);
        downloads.push(d.res);
        texts.push(d);
      }
      const held = await waitFor(
        () => t.server.services.logs.stats(),
        (s) => s.waitingForReader === 10 && s.downloadsWaiting === 5,
        { what: 'every reader to wait for its socket', timeoutMs: 60_000, intervalMs: 50 },
      );
      const after = heldMemory();
      const grown = `${(after.held - before.held).toFixed(1)} MiB held, ${(after.rss - before.rss).toFixed(1)} MiB resident`;
      assert.ok(
        held.queuedBytes < 10 * MiB,
        `the streams hold ${held.queuedBytes} bytes their readers have not taken`,
      );
      // Resident memory is not asserted: it keeps what the allocator took for garbage since
      // (the pages read and written), which varies with the kernel's socket buffers.
      assert.ok(after.held - before.held < 50, `the process grew by ${grown}`);
      const health = await fetch(`${t.url}/api/health`);
      assert.equal(health.status, 200);

      // Read now, every reader gets the whole log, once, in order.
      for (const reader of readers) reader.resume();
      for (const reader of readers) {
        await reader.waitFor('the last chunk', (e) => e.id === 31);
        assert.deepEqual(seqs(reader), range(0, 32));
      }
      for (const d of texts) {
        const text = await d.read();
        const got = text.split('\n');
        assert.equal(got.length, 32 * 2048 + 1);
        assert.equal(got[0], `[build] ${lines(0, 1)[0]?.line}`);
        assert.equal(got[32 * 2048 - 1]?.slice(0, 16), '[build] 31:2047 ');
        assert.equal(d.res.headers['x-sluice-log-next-seq'], '32');
      }
    } finally {
      for (const reader of readers) reader.close();
      for (const res of downloads) res.destroy();
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  "a live build's readers cost no read on the server that stored a chunk and one on another, whatever their number",
  async (database) => {
    const here = countLogReads(database);
    const there = countLogReads(database);
    // Replicas share the key that seals engine tokens and secrets.
    const secretKey = exportSecretKey(generateSecretKey());
    const a = await startTestServer(here.counted, { secretKey });
    const b = await startTestServer(there.counted, { secretKey });
    const readers: SseReader[] = [];
    try {
      const pipeline = await seedPipeline(a);
      const { build, engine } = await startEngine(a, pipeline.id);
      for (const t of [a, b])
        for (let i = 0; i < 10; i++) readers.push(await SseReader.open(t.url, build.id));
      for (const reader of readers) await reader.waitFor('live', (e) => e.event === 'comment');

      here.reset();
      there.reset();
      for (let seq = 0; seq < 10; seq++) {
        await post(engine, seq, lines(seq, 3));
        for (const reader of readers) await reader.waitFor(`chunk ${seq}`, (e) => e.id === seq);
      }
      // The server that stored the chunks had them; the other read each once (a wake-up that
      // comes during a read may add one), not once per reader.
      assert.ok(here.reads() <= 2, `${here.reads()} reads of the log where it was stored`);
      assert.ok(
        there.reads() >= 10 && there.reads() <= 20,
        `${there.reads()} reads of the log for 10 chunks on the other server`,
      );
      await finishBuild(engine);
      await Promise.all(readers.map((r) => r.closed));
      for (const reader of readers) {
        assert.deepEqual(seqs(reader), range(0, 10));
        assert.match(reader.events.at(-1)?.data ?? '', /"status":"success"/);
      }
    } finally {
      for (const reader of readers) reader.close();
      await b.close();
      await a.close();
    }
  },
);

databases.test(
  'a reader that falls behind the live window is told to resume, and resumes with no chunk lost or repeated',
  async (database) => {
    const t = await startTestServer(database, { logReaderWindowBytes: 64 * 1024 });
    const readers: SseReader[] = [];
    try {
      const pipeline = await seedPipeline(t);
      const { build, engine } = await startEngine(t, pipeline.id);
      const slow = await SseReader.open(t.url, build.id);
      readers.push(slow);
      await slow.waitFor('live', (e) => e.event === 'comment');
      slow.pause();
      // 64 KiB chunks until the server gives up on the reader (its socket's buffers take some
      // MiB first), then a few more for the resumed stream to read from the database.
      let seq = 0;
      while (t.server.services.logs.stats().behind === 0 && seq < 1000)
        await post(engine, seq, lines(seq++, 512));
      assert.equal(t.server.services.logs.stats().behind, 1, `no reader behind after ${seq}`);
      for (const end = seq + 3; seq < end; seq++) await post(engine, seq, lines(seq, 512));

      slow.resume();
      await slow.closed;
      const behind = slow.events.at(-1);
      assert.equal(behind?.event, 'behind');
      const told = JSON.parse(behind.data) as { code: string; lastEventId: number };
      assert.equal(told.code, 'SLUICE_LOG_READER_BEHIND');
      assert.equal(told.lastEventId, slow.lastId());

      const resumed = await SseReader.open(t.url, build.id, { lastEventId: told.lastEventId });
      readers.push(resumed);
      await finishBuild(engine);
      await resumed.closed;
      assert.equal(resumed.events.at(-1)?.event, 'end');
      const all = [...slow.chunks(), ...resumed.chunks()];
      assert.deepEqual(
        all.map((c) => c.seq),
        range(0, seq),
      );
      for (const chunk of all)
        assert.equal(chunk.lines[511]?.line, lines(chunk.seq, 512)[511]?.line);
    } finally {
      for (const reader of readers) reader.close();
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'GET …/log?from= reads the chunks from a seq on and says where the next download starts',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const { build, engine } = await startEngine(t, pipeline.id);
      await post(engine, 0, [...lines(0, 1, 8, 'a'), ...lines(0, 1, 8, 'b')]);
      await post(engine, 1, lines(1, 2, 8, 'a'));
      await post(engine, 2, lines(2, 1, 8, 'b'));
      const read = async (query: string) => {
        const response = await t.admin.raw('buildLog', {
          params: { buildId: build.id },
          query: Object.fromEntries(new URLSearchParams(query)),
        });
        return { text: await response.text(), next: response.headers.get('x-sluice-log-next-seq') };
      };
      assert.deepEqual(await read(''), {
        text: '[a] 0:0 xxxx\n[b] 0:0 xxxx\n[a] 1:0 xxxx\n[a] 1:1 xxxx\n[b] 2:0 xxxx\n',
        next: '3',
      });
      assert.deepEqual(await read('from=1'), {
        text: '[a] 1:0 xxxx\n[a] 1:1 xxxx\n[b] 2:0 xxxx\n',
        next: '3',
      });
      assert.deepEqual(await read('from=1&step=b'), { text: '2:0 xxxx\n', next: '3' });
      assert.deepEqual(await read('from=3'), { text: '', next: '3' });
      await post(engine, 3, lines(3, 1, 8, 'a'));
      assert.deepEqual(await read('from=3'), { text: '[a] 3:0 xxxx\n', next: '4' });
      const refused = await fetch(`${t.url}/api/v1/builds/${build.id}/log?from=-1`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(refused.status, 400);
      assert.match(await refused.text(), /from/);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);
