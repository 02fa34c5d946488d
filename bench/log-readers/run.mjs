#!/usr/bin/env node
// log-readers: what a build's live readers cost the server (issue 33). `sluice server` runs as a
// process of its own (as deployed), on PGlite in a temp directory and on a throwaway PostgreSQL
// cluster from the test kit (BENCH_KINDS, both by default). One build's engine is played by this
// process as the engine's outbox does it: lines made at BENCH_LINES_PER_S (5,000) of
// BENCH_LINE_CHARS (40) characters, posted one chunk at a time, a chunk being what came while
// the last post was under way (at most 2,000 lines), or 50 ms of lines when nothing is under way.
// Two windows of BENCH_SECONDS (20) each, in the same server:
//   baseline   no reader
//   readers    BENCH_READERS (1,000) readers following the build's SSE stream, in a child
//              process (readers.mjs), connected and live before the window starts: joining at
//              the last chunk stored (BENCH_READERS_FROM=tail), or from the first (=start)
// Figures per window: lines stored per second, the time from a line being made to its chunk
// stored (p50, p99), the server's CPU per 1,000 lines, its event-loop delay p99 (prom-client's
// histogram on /metrics, reset by the scrape at the window's start), and its resident memory
// (peak, sampled every 250 ms). With readers: the bytes they read, how many were told to resume
// (`behind`), and how soon the 20 sampled readers got each chunk after it was stored (p50, p99).
// After the window the build ends and every reader must have read every chunk and the end.
// Beside them, the machine's own figure (bare-fanout.mjs, BENCH_BARE=0 to leave it out): the same
// engine and readers on a bare node:http server that writes each chunk to every stream and does
// nothing else, so what the readers get from Sluice can be read against what this machine can
// carry at all.
// Goals: RSS growth (readers' window peak over the RSS before they connected) under 100 MiB,
// ingest within 1.2x of the baseline (lines/s, and the store latency p50), event-loop p99
// under 50 ms.
import { fork, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@sluice/protocol';
import { createTestDatabase, makeTempDir, startPostgres } from '@sluice/testkit';
import { acknowledgeTasks } from '../../test/dist/e2e/control-plane-seed.js';
import { ADMIN_TOKEN, benchConfig, percentile, seedBench } from '../dispatch/bench-server.mjs';
import { metricValue, readCpuMs, startServerProcess } from '../load/server-process.mjs';

const KINDS = (process.env.BENCH_KINDS ?? 'pglite,postgres').split(',');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const READERS = Number(process.env.BENCH_READERS ?? 1000);
const LINES_PER_S = Number(process.env.BENCH_LINES_PER_S ?? 5000);
const LINE_CHARS = Number(process.env.BENCH_LINE_CHARS ?? 40);
// `tail`: the readers join at the last chunk stored (a build page opened on a live build that
// shows its tail); `start`: from the first, catching up on the baseline's lines from the database.
const READERS_FROM = process.env.BENCH_READERS_FROM ?? 'tail';
// e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server.
const NODE_FLAGS = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const GOALS = { rss_growth_mib: 100, ingest_ratio: 1.2, eventloop_delay_p99_ms: 50 };
const round = (x, digits = 1) => (x === undefined || x === null ? null : Number(x.toFixed(digits)));
const log = (line) => console.log(line);

/**
 * The engine of one build, as its outbox sends: `run(seconds)` makes lines at LINES_PER_S and
 * posts them a chunk at a time; it resolves once every line made was stored.
 */
function playEngine(post) {
  let seq = 0;
  let made = 0;
  return async function run(seconds) {
    const pending = [];
    const chunks = [];
    const started = Date.now();
    const stopAt = started + seconds * 1000;
    const startMade = made;
    let making = true;
    const tick = setInterval(() => {
      const now = Date.now();
      const due = Math.min(now, stopAt) - started;
      const target = Math.floor((due * LINES_PER_S) / 1000);
      const at = new Date(now).toISOString();
      for (; made < startMade + target; made++)
        pending.push({ step: 'tick', stream: 'stdout', line: lineText(made), at, madeAt: now });
      if (now >= stopAt) {
        making = false;
        clearInterval(tick);
      }
    }, 10);
    while (making || pending.length > 0) {
      if (pending.length === 0) {
        await sleep(50);
        continue;
      }
      const batch = pending.splice(0, 2000);
      const oldest = batch[0].madeAt;
      const lines = batch.map(({ madeAt: _, ...line }) => line);
      await post(seq, lines);
      chunks.push({ seq, lines: lines.length, madeAt: oldest, storedAt: Date.now() });
      seq++;
    }
    const seconds_ = (Date.now() - started) / 1000;
    const lag = chunks.map((c) => c.storedAt - c.madeAt);
    return {
      chunks,
      lines: chunks.reduce((n, c) => n + c.lines, 0),
      posts: chunks.length,
      lines_per_s: Math.round(chunks.reduce((n, c) => n + c.lines, 0) / seconds_),
      store_ms: { p50: percentile(lag, 0.5), p99: percentile(lag, 0.99) },
    };
  };
}

function lineText(n) {
  return `line ${n} `.padEnd(LINE_CHARS, '.');
}

/** Peak RSS (MiB) while `work` runs, sampled every 250 ms. */
async function withRss(server, work) {
  let peak = await server.rssMiB();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await server.rssMiB());
      await sleep(250);
    }
  })();
  try {
    return { result: await work(), peak };
  } finally {
    sampling = false;
    await sampler;
  }
}

/** One window: the engine's figures, the server's CPU, loop p99 and RSS peak. */
async function window(server, run) {
  await server.scrape(); // resets the event-loop delay histogram
  const cpuStart = await server.cpuMs();
  const { result, peak } = await withRss(server, () => run(SECONDS));
  const loopP99 = metricValue(
    await server.scrape(),
    'sluice_server_nodejs_eventloop_lag_p99_seconds',
  );
  const cpuMs = (await server.cpuMs()) - cpuStart;
  return {
    ...result,
    server_cpu_ms_per_1000_lines: round((cpuMs * 1000) / result.lines),
    eventloop_delay_p99_ms: round((loopP99 ?? NaN) * 1000),
    rss_peak_mib: peak,
  };
}

function startReaders(url, buildId) {
  const child = fork(new URL('./readers.mjs', import.meta.url).pathname, [
    url,
    ADMIN_TOKEN,
    buildId,
  ]);
  const ask = (message, type) =>
    new Promise((resolve) => {
      const on = (reply) => {
        if (reply.type !== type) return;
        child.off('message', on);
        resolve(reply);
      };
      child.on('message', on);
      child.send(message);
    });
  return {
    cpuMs: () => readCpuMs(child.pid),
    connect: (count, lastEventId) => ask({ type: 'connect', count, lastEventId }, 'connected'),
    stats: (arrivals = false) => ask({ type: 'stats', arrivals }, 'stats'),
    close: () => {
      child.send({ type: 'close' });
      return new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

async function until(read, done, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`gave up waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(250);
  }
}

async function bench(kind) {
  const temp = await makeTempDir('sluice-bench-log-readers-');
  const config = benchConfig();
  let pg;
  const env = { SLUICE_BOOTSTRAP_TOKEN: ADMIN_TOKEN, SLUICE_SECRET_KEY: config.secretKey };
  if (kind === 'postgres') {
    pg = await startPostgres();
    env.DATABASE_URL = await createTestDatabase(pg.url, `sluice_bench_log_readers_${process.pid}`);
  } else env.SLUICE_DATA_DIR = join(temp.path, 'data');
  const logFile = join(tmpdir(), `sluice-bench-log-readers-${kind}-${process.pid}.log`);
  const server = await startServerProcess({ env, logFile, nodeFlags: NODE_FLAGS });
  log(`${kind}: server pid ${server.pid} at ${server.url} (output: ${logFile})`);
  let readers;
  try {
    const { admin, pipelineId, newAgent } = await seedBench(server.url, { pipelineName: 'tick' });
    const agent = await newAgent('bench-agent');
    const build = await admin.call('createBuild', { params: { pipelineId }, body: {} });
    let token;
    while (token === undefined) {
      const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
      await acknowledgeTasks(agent, tasks);
      token = tasks.find((t) => t.buildId === build.id)?.spec.engineToken;
    }
    const engine = createClient({ baseUrl: server.url, token: String(token) });
    const run = playEngine((seq, lines) => engine.call('engineLog', { body: { seq, lines } }));

    log(`${kind}: baseline, no reader, ${SECONDS} s at ${LINES_PER_S} lines/s`);
    const baseline = await window(server, run);
    log(`${kind}: baseline ${JSON.stringify({ ...baseline, chunks: undefined })}`);

    const rssBefore = await server.rssMiB();
    readers = startReaders(server.url, build.id);
    const tail = baseline.chunks.at(-1).seq;
    await readers.connect(READERS, READERS_FROM === 'start' ? -1 : tail);
    await until(
      () => readers.stats(),
      (s) => s.live === READERS,
      `${READERS} readers live`,
    );
    const rssConnected = await server.rssMiB();
    log(`${kind}: ${READERS} readers live; RSS ${rssBefore} → ${rssConnected} MiB`);
    const before = await readers.stats();
    const readersCpuStart = await readers.cpuMs();
    const loaded = await window(server, run);
    const readersCpuMs = (await readers.cpuMs()) - readersCpuStart;
    const lastSeq = loaded.chunks.at(-1).seq;
    const caughtUp = await until(
      () => readers.stats(true),
      (s) => s.minLastId >= lastSeq,
      `every reader to read chunk ${lastSeq}`,
    );
    await engine.call('engineEvents', {
      body: {
        events: [{ type: 'build-finished', status: 'success', at: new Date().toISOString() }],
      },
    });
    const ended = await until(
      () => readers.stats(),
      (s) => s.ended === READERS,
      'every end event',
    );
    log(`${kind}: readers ${JSON.stringify({ ...loaded, chunks: undefined })}`);
    return {
      baseline: { ...baseline, chunks: undefined },
      readers: {
        ...loaded,
        chunks: undefined,
        count: READERS,
        read_mib_per_s: round((caughtUp.bytes - before.bytes) / 2 ** 20 / SECONDS),
        behind: ended.behind,
        // The readers' own process: on a small machine it competes with the server for CPU.
        readers_cpu_share_of_window: round(readersCpuMs / (SECONDS * 1000), 2),
        every_chunk_read: ended.minLastId >= lastSeq,
        delivery_ms: deliveryMs(loaded.chunks, caughtUp.arrivals),
      },
      rss_mib: {
        before_readers: rssBefore,
        readers_connected: rssConnected,
        peak: loaded.rss_peak_mib,
      },
      rss_growth_mib: round(loaded.rss_peak_mib - rssBefore),
      ingest_ratio: {
        lines_per_s: round(baseline.lines_per_s / loaded.lines_per_s, 2),
        store_p50: round(loaded.store_ms.p50 / baseline.store_ms.p50, 2),
      },
    };
  } finally {
    await readers?.close();
    await server.stop();
    await pg?.stop();
    await temp.cleanup();
  }
}

/** The machine's own figure: the same engine and readers on bare-fanout.mjs. */
async function bare() {
  const child = spawn(process.execPath, [new URL('./bare-fanout.mjs', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(d))));
  const url = `http://127.0.0.1:${port}`;
  const send = (path, body) =>
    fetch(`${url}${path}`, { method: 'POST', body }).then((r) => r.arrayBuffer());
  const readers = startReaders(url, 'bare');
  try {
    await readers.connect(READERS, -1);
    await until(
      () => readers.stats(),
      (s) => s.live === READERS,
      `${READERS} readers live`,
    );
    const rssBefore = await rssMiB(child.pid);
    let peak = rssBefore;
    const sampler = setInterval(async () => (peak = Math.max(peak, await rssMiB(child.pid))), 250);
    const before = await readers.stats();
    const run = playEngine((seq, lines) => send(`/chunk?seq=${seq}`, JSON.stringify(lines)));
    const result = await run(SECONDS);
    const lastSeq = result.chunks.at(-1).seq;
    const caughtUp = await until(
      () => readers.stats(true),
      (s) => s.minLastId >= lastSeq,
      `every reader to read chunk ${lastSeq}`,
    );
    clearInterval(sampler);
    await send('/end', '');
    await until(
      () => readers.stats(),
      (s) => s.ended === READERS,
      'every end event',
    );
    return {
      lines_per_s: result.lines_per_s,
      posts: result.posts,
      read_mib_per_s: round((caughtUp.bytes - before.bytes) / 2 ** 20 / SECONDS),
      delivery_ms: deliveryMs(result.chunks, caughtUp.arrivals),
      rss_growth_mib: round(peak - rssBefore),
    };
  } finally {
    await readers.close();
    child.kill();
  }
}

function deliveryMs(chunks, arrivals) {
  const storedAt = new Map(chunks.map((c) => [c.seq, c.storedAt]));
  const delivery = arrivals
    .flatMap((seen) => seen.filter(([seq]) => storedAt.has(seq)))
    .map(([seq, at]) => at - storedAt.get(seq));
  return { p50: percentile(delivery, 0.5), p99: percentile(delivery, 0.99) };
}

async function rssMiB(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return round(Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]) / 1024);
}

const loadStart = loadavg()[0];
const results = {};
log(`bare fan-out (the machine's baseline): ${READERS} readers, ${SECONDS} s`);
const baseline = process.env.BENCH_BARE === '0' ? null : await bare();
log(`bare ${JSON.stringify(baseline)}`);
for (const kind of KINDS) results[kind] = await bench(kind);
const met = (r) => ({
  rss_growth: r.rss_growth_mib < GOALS.rss_growth_mib,
  ingest:
    r.ingest_ratio.lines_per_s <= GOALS.ingest_ratio &&
    r.ingest_ratio.store_p50 <= GOALS.ingest_ratio,
  eventloop_delay_p99: r.readers.eventloop_delay_p99_ms < GOALS.eventloop_delay_p99_ms,
  every_chunk_read: r.readers.every_chunk_read,
});
console.log(
  JSON.stringify({
    bench: 'log-readers',
    seconds: SECONDS,
    readers: READERS,
    readers_from: READERS_FROM,
    lines_per_s: LINES_PER_S,
    line_chars: LINE_CHARS,
    goal: GOALS,
    bare_fanout: baseline,
    met: Object.fromEntries(Object.entries(results).map(([k, r]) => [k, met(r)])),
    ...results,
    machine: { cpus: cpus().length, loadavg_1m: [round(loadStart, 2), round(loadavg()[0], 2)] },
  }),
);
