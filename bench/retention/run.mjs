#!/usr/bin/env node
// retention: the background retention pass deleting 100,000 builds with their steps and logs
// while bench/load's clients use the API. `sluice server` runs as a process of its own on a
// throwaway PostgreSQL (bench/load's); a pipeline `old` is given BENCH_BUILDS finished builds
// created 400 days ago, each with two steps, a task, an engine token and BENCH_CHUNKS log chunks
// of BENCH_LINES lines (written with SQL: the API would take hours), then:
//
// 1. Before (same run, same server, same old builds): bench/load's clients (BENCH_LIST_CLIENTS
//    GETs of a page of builds, BENCH_CREATE_CLIENTS POSTs of a build of another pipeline) for
//    BENCH_BASELINE_SECONDS after BENCH_WARMUP_SECONDS, nothing deleted.
// 2. Retention: `old` is given `retention: {days: 90}` (PATCH); the server's pass (every second
//    here: SLUICE_RETENTION_INTERVAL_MS=1000) deletes its builds in batches while the same
//    clients run, until none is left (counted with psql every second) or BENCH_MAX_SECONDS.
// 3. After: the same clients for BENCH_BASELINE_SECONDS again, the old builds gone.
//
// Figures: GET and POST p50/p99 in both phases and the ratio, how long the deletion took and
// its rate, the server's event-loop delay p99 over the deletion (from /metrics), and in each
// phase the seconds in which an autovacuum worker ran and on which tables (pg_stat_activity,
// sampled every second: a mass delete leaves dead rows that autovacuum then works through on
// the same cores as the clients). Goal: GET p99 under 150 ms while the pass runs.
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@sluice/protocol';
import { runPsql } from '@sluice/testkit';
import { ADMIN_TOKEN, benchConfig, seedBench } from '../dispatch/bench-server.mjs';
import { apiClients, runClients } from '../load/load-clients.mjs';
import { metricValue, startServerProcess } from '../load/server-process.mjs';
import { openPostgres } from '../load/throwaway-postgres.mjs';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 100_000);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 2);
const LINES = Number(process.env.BENCH_LINES ?? 20);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 20);
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 900);
const LIST_CLIENTS = Number(process.env.BENCH_LIST_CLIENTS ?? 50);
const CREATE_CLIENTS = Number(process.env.BENCH_CREATE_CLIENTS ?? 50);
const GOAL = { get_p99_ms: 150 };

const log = (line) => console.log(line);
const round = (x, digits = 1) => (x === undefined || x === null ? null : Number(x.toFixed(digits)));

/** The old builds, with what a real build leaves: steps, log chunks, a task, an engine token. */
async function seedHistory(url, pipelineId) {
  const line = JSON.stringify({ step: 'test', stream: 'stdout', line: 'x'.repeat(80), at: '' });
  const lines = `[${Array(LINES).fill(line).join(',')}]`;
  const builds = `from pipelines p, generate_series(1, ${BUILDS}) g where p.id = '${pipelineId}'`;
  const old = "now() - interval '400 days'";
  await runPsql(
    url,
    `insert into builds (id, account_id, pipeline_id, number, status, trigger, created_at,
        finished_at, timing)
      select 'bld_old_' || g, p.account_id, p.id, g, 'success', 'manual', ${old}, ${old}, '{}'
      ${builds};
    update pipelines set last_build_number = ${BUILDS} where id = '${pipelineId}';
    insert into build_steps (build_id, name, position, status)
      select 'bld_old_' || g, s.name, s.position, 'success'
      from generate_series(1, ${BUILDS}) g, (values ('clone', 0), ('test', 1)) as s(name, position);
    insert into build_log_chunks (build_id, seq, lines, byte_size)
      select 'bld_old_' || g, c, '${lines}'::jsonb, ${LINES * 80}
      from generate_series(1, ${BUILDS}) g, generate_series(0, ${CHUNKS - 1}) c;
    insert into tasks (id, account_id, build_id, runtime, type, spec, status)
      select 'tsk_old_' || g, p.account_id, 'bld_old_' || g, 'local', 'RunEngine', '{}', 'done'
      ${builds};
    insert into api_tokens (id, account_id, kind, subject_id, name, token_hash, token_prefix,
        revoked_at)
      select 'tok_old_' || g, p.account_id, 'engine', 'bld_old_' || g, 'engine',
        md5('bld_old_' || g), 'slu_e', ${old}
      ${builds};
    analyze`,
  );
}

/**
 * Samples pg_stat_activity every second until `signal` aborts: in how many samples an
 * autovacuum worker ran, and the tables it worked on.
 */
async function sampleAutovacuum(url, signal) {
  const seen = { samples: 0, with_autovacuum: 0, tables: new Set() };
  while (!signal.aborted) {
    const text = await runPsql(
      url,
      `select coalesce(string_agg(substring(query from 'autovacuum: [A-Z ]+ (\\S+)'), ','), '')
        from pg_stat_activity where backend_type = 'autovacuum worker'`,
    ).catch(() => '');
    seen.samples += 1;
    const tables = text.trim().split(',').filter(Boolean);
    if (tables.length > 0) seen.with_autovacuum += 1;
    for (const table of tables) seen.tables.add(table.replace(/^public\./, ''));
    await sleep(1000, undefined, { signal }).catch(() => undefined);
  }
  return { ...seen, tables: [...seen.tables].sort() };
}

/** `work()` with autovacuum sampled while it runs. */
async function withAutovacuum(url, work) {
  const sampling = new AbortController();
  const samples = sampleAutovacuum(url, sampling.signal);
  try {
    return { result: await work(), autovacuum: await (sampling.abort(), samples) };
  } finally {
    sampling.abort();
  }
}

async function remaining(url, pipelineId) {
  return Number(
    await runPsql(url, `select count(*) from builds where pipeline_id = '${pipelineId}'`),
  );
}

async function bench(database) {
  const config = benchConfig();
  const logFile = join(tmpdir(), `sluice-bench-retention-${process.pid}.log`);
  const server = await startServerProcess({
    env: {
      DATABASE_URL: database.url,
      SLUICE_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
      SLUICE_SECRET_KEY: config.secretKey,
      SLUICE_PUBLIC_URL: config.publicUrl,
      SLUICE_RETENTION_INTERVAL_MS: '1000',
    },
    logFile,
  });
  log(`server pid ${server.pid} at ${server.url} (output: ${logFile})`);
  try {
    const { pipelineId } = await seedBench(server.url, { pipelineName: 'load' });
    const admin = createClient({ baseUrl: server.url, token: ADMIN_TOKEN });
    const old = await admin.call('createPipeline', {
      params: { project: 'bench' },
      body: { name: 'old', yaml: 'version: "1.0"\nsteps:\n  a:\n    image: alpine\n' },
    });
    const seeding = performance.now();
    await seedHistory(database.tcpUrl, old.id);
    const logBytes = Number(
      await runPsql(database.tcpUrl, 'select coalesce(sum(byte_size), 0) from build_log_chunks'),
    );
    log(
      `seeded ${BUILDS} builds (${logBytes} bytes of log) in ${round((performance.now() - seeding) / 1000)} s`,
    );
    const clients = apiClients(pipelineId, LIST_CLIENTS, CREATE_CLIENTS);

    log(`warm-up: ${LIST_CLIENTS} GET and ${CREATE_CLIENTS} POST clients, ${WARMUP_SECONDS} s`);
    await runClients(server.url, ADMIN_TOKEN, clients, WARMUP_SECONDS);
    log(`before: the same clients for ${BASELINE_SECONDS} s`);
    const { result: baseline, autovacuum: vacuumBefore } = await withAutovacuum(
      database.tcpUrl,
      () => runClients(server.url, ADMIN_TOKEN, clients, BASELINE_SECONDS),
    );
    log(`before ${JSON.stringify(baseline)}`);

    await server.scrape(); // resets the event-loop delay histogram
    const stop = new AbortController();
    const started = performance.now();
    await admin.call('updatePipeline', {
      params: { pipelineId: old.id },
      body: { retention: { days: 90 } },
    });
    log('retention: {days: 90} set; measuring until every old build is deleted');
    const watching = (async () => {
      for (;;) {
        await sleep(1000);
        const left = await remaining(database.tcpUrl, old.id);
        if (left === 0 || performance.now() - started > MAX_SECONDS * 1000) {
          stop.abort();
          return { left, seconds: (performance.now() - started) / 1000 };
        }
      }
    })();
    const { result: during, autovacuum: vacuumDuring } = await withAutovacuum(database.tcpUrl, () =>
      runClients(server.url, ADMIN_TOKEN, clients, MAX_SECONDS, { signal: stop.signal }),
    );
    const deletion = await watching;
    const loopP99 = metricValue(
      await server.scrape(),
      'sluice_server_nodejs_eventloop_lag_p99_seconds',
    );
    log(`during ${JSON.stringify(during)}`);
    // Again with the old builds gone: the machine's load moves, so the deletion is bracketed.
    log(`after: the same clients for ${BASELINE_SECONDS} s`);
    const { result: afterwards, autovacuum: vacuumAfter } = await withAutovacuum(
      database.tcpUrl,
      () => runClients(server.url, ADMIN_TOKEN, clients, BASELINE_SECONDS),
    );
    log(`after ${JSON.stringify(afterwards)}`);
    const autovacuum = { before: vacuumBefore, during: vacuumDuring, after: vacuumAfter };
    return { baseline, during, afterwards, deletion, loopP99, logBytes, autovacuum };
  } finally {
    await server.stop();
  }
}

const loadStart = loadavg()[0];
const database = await openPostgres(`sluice_bench_retention_${process.pid}`);
let result;
try {
  result = await bench(database);
} finally {
  await database.cleanup();
}
const GET = 'GET /api/v1/builds';
const POST = 'POST /api/v1/pipelines/:id/builds';
const { baseline, during, afterwards, deletion } = result;
const ratio = (phase, route) => round(during[route]?.p99_ms / phase[route]?.p99_ms, 2);
const deleted = BUILDS - deletion.left;
console.log(
  JSON.stringify({
    bench: 'retention',
    builds: BUILDS,
    log_bytes: result.logBytes,
    clients: { list: LIST_CLIENTS, create: CREATE_CLIENTS },
    deleted,
    deletion_seconds: round(deletion.seconds),
    builds_deleted_per_s: round(deleted / deletion.seconds, 0),
    get_p99_ms: during[GET]?.p99_ms ?? null,
    goal: GOAL,
    met: { get_p99: (during[GET]?.p99_ms ?? Infinity) < GOAL.get_p99_ms && deletion.left === 0 },
    // The same clients' p99 with the retention pass running over without it, before the pass
    // and after it (same run, same server).
    ratio_to_baseline: {
      get_p99: { before: ratio(baseline, GET), after: ratio(afterwards, GET) },
      post_p99: { before: ratio(baseline, POST), after: ratio(afterwards, POST) },
    },
    eventloop_delay_p99_ms: result.loopP99 === undefined ? null : round(result.loopP99 * 1000),
    autovacuum: result.autovacuum,
    during,
    before: baseline,
    after: afterwards,
    machine: { cpus: cpus().length, loadavg_1m: [round(loadStart, 2), round(loadavg()[0], 2)] },
  }),
);
