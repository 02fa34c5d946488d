#!/usr/bin/env node
// Where dispatch time goes (not a benchmark: run by hand, `node bench/dispatch/diagnose.mjs`,
// after `npm run build`). Runs the dispatch loop of run.mjs with the server's database wrapped in
// a timing plugin, service calls tagged with AsyncLocalStorage, and the wake-up path timed:
// create sent -> createBuild service -> scheduler transaction -> NOTIFY heard -> poll woken ->
// claim -> task at the agent. Also counts lost wake-ups (NOTIFY heard while no long-poll waits).
// Knobs: DIAG_DATABASES (pglite,postgres), DIAG_BUILDS (300).
import { AsyncLocalStorage } from 'node:async_hooks';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '@sluice/db';
import { createClient } from '@sluice/protocol';
import { createServer } from '@sluice/server';
import { acknowledge, benchConfig, percentile, seedBench, withPlugin } from './bench-server.mjs';
import { createTestDatabase, startPostgres } from '@sluice/testkit';

const DATABASES = (process.env.DIAG_DATABASES ?? 'pglite,postgres').split(',').filter(Boolean);
const BUILDS = Number(process.env.DIAG_BUILDS ?? 300);
const now = () => performance.now();
const pct = (xs, p) => percentile(xs, p) ?? NaN;
const fmt = (xs) =>
  `p50 ${pct(xs, 0.5).toFixed(1).padStart(6)}  p90 ${pct(xs, 0.9).toFixed(1).padStart(6)}  p99 ${pct(xs, 0.99).toFixed(1).padStart(7)}  max ${Math.max(
    ...xs,
  )
    .toFixed(1)
    .padStart(7)}  (n ${xs.length})`;

const als = new AsyncLocalStorage();
/** op -> { calls, wall[], queries[] (per call), queryMs[] (per call) } */
let stats = new Map();
function stat(op) {
  let s = stats.get(op);
  if (s === undefined)
    stats.set(op, (s = { wall: [], queries: [], queryMs: [], byQuery: new Map() }));
  return s;
}
const inflight = new Map();
const timingPlugin = {
  transformQuery({ node, queryId }) {
    const frame = als.getStore();
    inflight.set(queryId, { t: now(), frame, node });
    return node;
  },
  async transformResult({ result, queryId }) {
    const q = inflight.get(queryId);
    inflight.delete(queryId);
    if (q?.frame !== undefined) {
      const ms = now() - q.t;
      q.frame.queries += 1;
      q.frame.queryMs += ms;
      const label = queryLabel(q.node);
      const list = stat(q.frame.op).byQuery.get(label) ?? [];
      list.push(ms);
      stat(q.frame.op).byQuery.set(label, list);
    }
    return result;
  },
};
function queryLabel(node) {
  const table = (n) => n?.table?.identifier?.name ?? n?.table?.table?.identifier?.name;
  switch (node.kind) {
    case 'SelectQueryNode':
      return `select ${node.from?.froms?.map((f) => table(f) ?? f.table?.identifier?.name ?? '?').join(',')}`;
    case 'InsertQueryNode':
      return `insert ${table(node.into)}`;
    case 'UpdateQueryNode':
      return `update ${table(node.table)}`;
    case 'DeleteQueryNode':
      return `delete`;
    case 'RawNode':
      return `raw ${node.sqlFragments.join('?').slice(0, 40)}`;
    default:
      return node.kind;
  }
}
/** Wraps obj[name] so its calls are timed and the queries they run are attributed to `op`. */
function instrument(obj, name, op, onCall) {
  const original = obj[name].bind(obj);
  obj[name] = (...args) => {
    const frame = { op, queries: 0, queryMs: 0, start: now() };
    onCall?.(frame, args);
    return als.run(frame, async () => {
      try {
        return await original(...args);
      } finally {
        const s = stat(op);
        s.wall.push(now() - frame.start);
        s.queries.push(frame.queries);
        s.queryMs.push(frame.queryMs);
        frame.end = now();
      }
    });
  };
}

async function diagnose(kind) {
  let raw;
  let stopPg = async () => {};
  if (kind === 'pglite') raw = await openDatabase({ memory: true });
  else {
    const pg = await startPostgres();
    raw = await openDatabase({
      url: await createTestDatabase(pg.url, `sluice_diag_${process.pid}`),
    });
    stopPg = () => pg.stop();
  }
  const database = withPlugin(raw, timingPlugin);
  const server = await createServer({ config: benchConfig(), database });
  const url = await server.listen();
  const s = server.services;
  // Timeline probes.
  let current; // the build being measured: its timestamps
  instrument(s.builds, 'create', 'createBuild', () => current && (current.serviceIn = now()));
  instrument(s.scheduler, 'schedule', 'schedule', (frame) => {
    if (current) {
      current.scheduleIn = now();
      current.scheduleFrame = frame;
    }
  });
  let pollFrames = [];
  instrument(s.tasks, 'poll', 'poll', (frame) => pollFrames.push(frame));
  instrument(s.tasks, 'report', 'report');
  instrument(s.identity, 'authenticate', 'authenticate');
  const signals = s.ctx.signals;
  const waitOriginal = signals.wait.bind(signals);
  let waiting = 0; // task waiters registered right now
  let lastWaitResolved;
  signals.wait = (channel, key, ms, signal) => {
    if (channel !== 'sluice_tasks') return waitOriginal(channel, key, ms, signal);
    waiting++;
    return waitOriginal(channel, key, ms, signal).then(() => {
      waiting--;
      lastWaitResolved = now();
    });
  };
  let lost = 0;
  await raw.subscribe('sluice_tasks', () => {
    if (current && current.notified === undefined) {
      current.notified = now();
      // Our handler runs after Signals' (subscribed first): a waiter woken now has waiting-- pending,
      // so look at whether one was resolved in this same tick.
      queueMicrotask(() => {
        if (waiting === 0 && !(lastWaitResolved >= current.notified)) {
          current.lostWakeup = true;
        }
      });
    }
  });

  const { admin, pipelineId, newAgent } = await seedBench(url);
  const agent = await newAgent('a');

  const stop = new AbortController();
  const waiters = new Map();
  const arrivals = new Map();
  const loop = (async () => {
    while (!stop.signal.aborted) {
      let tasks;
      try {
        ({ tasks } = await agent.call('pollTasks', { query: { wait: 30 }, signal: stop.signal }));
      } catch {
        return;
      }
      const at = now();
      for (const task of tasks) {
        const acked = acknowledge(agent, task);
        arrivals.set(task.buildId, { at, acked });
        waiters.get(task.buildId)?.({ at, acked });
      }
    }
  })();
  await sleep(200);
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  const gcPauses = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcPauses.push(e.duration);
  });
  const rows = [];
  for (let i = 0; i < 20 + BUILDS; i++) {
    if (i === 20) {
      stats = new Map();
      loopDelay.enable();
      gcObserver.observe({ entryTypes: ['gc'] });
    }
    current = { t0: now() };
    pollFrames = pollFrames.filter((f) => f.end === undefined);
    const row = current;
    const buildIdP = admin.call('createBuild', { params: { pipelineId }, body: {} });
    // The task can reach the agent before createBuild answers: register by id as soon as known.
    const arrival = new Promise((resolve) => {
      row.resolveArrival = resolve;
    });
    const created = await buildIdP;
    row.created = now();
    waiters.set(created.id, row.resolveArrival);
    if (arrivals.has(created.id)) row.resolveArrival(arrivals.get(created.id));
    const got = await Promise.race([arrival, sleep(6000, undefined)]);
    if (got === undefined) throw new Error('task never arrived');
    row.at = got.at;
    row.scheduleOut = row.scheduleFrame?.end;
    const poll = pollFrames.find(
      (f) => f.end !== undefined && f.end <= got.at + 0.001 && f.end >= row.t0,
    );
    row.pollStart = poll?.start;
    row.pollEnd = poll?.end;
    await got.acked;
    await sleep(Math.random() * 5);
    if (i >= 20) rows.push(row);
  }
  loopDelay.disable();
  gcObserver.disconnect();
  stop.abort();
  await loop;
  // The two scheduler/create queries whose cost grows with the builds kept.
  const explain = async (q) =>
    (
      await raw.db.executeQuery({
        sql: `explain (analyze, costs off) ${q}`,
        parameters: [pipelineId],
        query: { kind: 'RawNode' },
      })
    ).rows
      .map((r) => Object.values(r)[0])
      .join(' | ');
  const plans = [
    await explain('select coalesce(max(number), 0) from builds where pipeline_id = $1'),
    await explain(
      `select pipeline_id, count(*) from builds where account_id = (select account_id from pipelines where id = $1) and status in ('elected','running','pending-approval') group by pipeline_id`,
    ),
  ];
  await server.close();
  await raw.close();
  await stopPg();

  console.log(`\n=== ${kind}: ${rows.length} builds ===`);
  const col = (f) => rows.map(f).filter((x) => Number.isFinite(x));
  console.log(`total (create sent -> task at agent)          ${fmt(col((r) => r.at - r.t0))}`);
  console.log(
    `  HTTP+auth until createBuild service starts  ${fmt(col((r) => r.serviceIn - r.t0))}`,
  );
  console.log(
    `  service start -> scheduler starts           ${fmt(col((r) => r.scheduleIn - r.serviceIn))}`,
  );
  console.log(
    `  scheduler transaction (incl. COMMIT)        ${fmt(col((r) => r.scheduleOut - r.scheduleIn))}`,
  );
  console.log(
    `  scheduler end -> NOTIFY heard in process    ${fmt(col((r) => r.notified - r.scheduleOut))}`,
  );
  console.log(
    `  NOTIFY heard -> poll service returns        ${fmt(col((r) => r.pollEnd - r.notified))}`,
  );
  console.log(`  poll service returns -> agent has it        ${fmt(col((r) => r.at - r.pollEnd))}`);
  console.log(`  createBuild HTTP round trip                 ${fmt(col((r) => r.created - r.t0))}`);
  const lostRows = rows.filter((r) => r.lostWakeup);
  console.log(
    `lost wake-ups (NOTIFY heard while no poll waited): ${lostRows.length}; their latencies: ${lostRows.map((r) => (r.at - r.t0).toFixed(0)).join(', ')} ms`,
  );
  const slow = rows.filter(
    (r) =>
      r.at - r.t0 >
      pct(
        col((r) => r.at - r.t0),
        0.95,
      ),
  );
  console.log(
    `slowest 5%: scheduler ${fmt(slow.map((r) => r.scheduleOut - r.scheduleIn))}\n            wake->return ${fmt(slow.map((r) => r.pollEnd - r.notified).filter(Number.isFinite))}`,
  );
  console.log(
    `load average during run (1 min): ${loadavg()[0].toFixed(2)} on ${(await import('node:os')).cpus().length} CPUs`,
  );
  console.log(
    `GC pauses: ${gcPauses.length}, total ${gcPauses.reduce((a, b) => a + b, 0).toFixed(0)} ms, p99 ${pct(gcPauses, 0.99).toFixed(1)} ms, max ${Math.max(...gcPauses).toFixed(1)} ms`,
  );
  for (const plan of plans) console.log(`plan: ${plan}`);
  console.log(
    `event-loop delay: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms`,
  );
  for (const [op, st] of stats) {
    if (st.wall.length === 0) continue;
    console.log(
      `${op.padEnd(13)} wall ${fmt(st.wall)}\n${''.padEnd(13)} queries/call ${pct(st.queries, 0.5)}, time in queries ${fmt(st.queryMs)}`,
    );
    for (const [label, ms] of [...st.byQuery]
      .sort((a, b) => pct(b[1], 0.99) - pct(a[1], 0.99))
      .slice(0, 6))
      console.log(`    ${label.padEnd(42)} ${fmt(ms)}`);
  }
}

for (const kind of DATABASES) await diagnose(kind);
