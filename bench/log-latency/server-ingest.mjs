// The server alone taking in logs: `sluice server` as a process of its own on PGlite in a temp
// directory (as `sluice up` runs it), and BENCH_BUILDS (20) builds whose engines are played by
// this process: each posts its build's BENCH_BURST (10,000) lines to POST /api/engine/v1/log
// over real HTTP with its own engine token, one chunk at a time as the engine's outbox does,
// BENCH_CHUNK_LINES (what the engine puts in a chunk under load) lines a chunk, all 20 at once.
// Figures: every line over the time from the first post to the last answer, and over the CPU
// time the server used meanwhile. Then each build's log is read back whole and checked: every
// line stored once, in order.
// Run alone: `node bench/log-latency/server-ingest.mjs` (BENCH_SERVER_NODE_FLAGS for a profile).
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@sluice/protocol';
import { makeTempDir } from '@sluice/testkit';
import { acknowledgeTasks } from '../../test/dist/e2e/control-plane-seed.js';
import { ADMIN_TOKEN, seedBench } from '../dispatch/bench-server.mjs';
import { startServerProcess } from '../load/server-process.mjs';

/** Posts `lines` lines of one build in chunks of `chunkLines`, one at a time; the posts' count. */
async function postBuildLog(engine, lines, chunkLines) {
  let seq = 0;
  for (let from = 1; from <= lines; from += chunkLines) {
    const at = new Date().toISOString();
    const chunk = [];
    for (let n = from; n < Math.min(lines + 1, from + chunkLines); n++)
      chunk.push({ step: 'burst', stream: 'stdout', line: String(n), at });
    await engine.call('engineLog', { body: { seq: seq++, lines: chunk } });
  }
  return seq;
}

/** Engine clients for `count` new builds, as an agent would have started them. */
async function startEngines(url, count) {
  const { admin, pipelineId, newAgent } = await seedBench(url, { pipelineName: 'burst' });
  await admin.call('updatePipeline', {
    params: { pipelineId },
    body: { maxConcurrentBuilds: count },
  });
  const agent = await newAgent('bench-agent');
  const builds = [];
  for (let i = 0; i < count; i++)
    builds.push(await admin.call('createBuild', { params: { pipelineId }, body: {} }));
  const tokens = new Map();
  while (tokens.size < count) {
    const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
    await acknowledgeTasks(agent, tasks);
    for (const t of tasks) tokens.set(t.buildId, String(t.spec.engineToken));
  }
  return {
    admin,
    engines: builds.map((b) => ({
      buildId: b.id,
      client: createClient({ baseUrl: url, token: tokens.get(b.id) }),
    })),
  };
}

/** Throws unless the build's whole log is the numbers 1…lines, once each, in order. */
async function checkStored(admin, buildId, lines) {
  const response = await admin.raw('buildLog', { params: { buildId } });
  const text = await response.text();
  const stored = text.split('\n').filter(Boolean);
  for (let i = 0; i < lines; i++)
    if (stored[i] !== `[burst] ${i + 1}`)
      throw new Error(`build ${buildId}: line ${i + 1} stored as ${JSON.stringify(stored[i])}`);
  if (stored.length !== lines)
    throw new Error(`build ${buildId}: ${stored.length} lines stored, ${lines} posted`);
}

/**
 * Runs the server-only ingest: `{ lines_per_s, lines, seconds, posts, chunk_lines, builds,
 * server_cpu_ms, server_cpu_lines_per_s }`.
 */
export async function serverIngest({ builds, lines, chunkLines, nodeFlags = [] }) {
  const temp = await makeTempDir('sluice-bench-server-ingest-');
  const server = await startServerProcess({
    env: {
      SLUICE_DATA_DIR: join(temp.path, 'data'),
      SLUICE_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
    },
    nodeFlags,
    logFile: join(temp.path, 'server.log'),
  });
  try {
    const { admin, engines } = await startEngines(server.url, builds);
    const cpuStart = await server.cpuMs();
    const started = performance.now();
    const posts = await Promise.all(engines.map((e) => postBuildLog(e.client, lines, chunkLines)));
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = (await server.cpuMs()) - cpuStart;
    for (const e of engines) await checkStored(admin, e.buildId, lines);
    return {
      lines_per_s: Math.round((builds * lines) / seconds),
      lines: builds * lines,
      seconds: Math.round(seconds * 100) / 100,
      posts: posts.reduce((a, b) => a + b, 0),
      chunk_lines: chunkLines,
      builds,
      server_cpu_ms: Math.round(cpuMs),
      // Lines per second of the server's own CPU time: what the server could take with a core
      // to itself, less bent by other work on the machine than the wall-clock figure.
      server_cpu_lines_per_s: Math.round((builds * lines) / (cpuMs / 1000)),
    };
  } finally {
    await server.stop();
    await temp.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const loadAtStart = loadavg()[0];
  const result = await serverIngest({
    builds: Number(process.env.BENCH_BUILDS ?? 20),
    lines: Number(process.env.BENCH_BURST ?? 10_000),
    chunkLines: Number(process.env.BENCH_CHUNK_LINES ?? 200),
    nodeFlags: (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean),
  });
  console.log(
    JSON.stringify({
      bench: 'log-latency/server-ingest',
      ...result,
      goal: { lines_per_s: 50_000 },
      machine: {
        cpus: cpus().length,
        loadavg_1m: [Math.round(loadAtStart * 100) / 100, Math.round(loadavg()[0] * 100) / 100],
      },
    }),
  );
}
