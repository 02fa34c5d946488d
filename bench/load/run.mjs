#!/usr/bin/env node
// load: the control plane's API under many users at once. `sluice server` runs as a process of
// its own on a throwaway PostgreSQL; 50 clients list builds (GET /api/v1/builds, a page of 50
// with their steps) while 50 others create them (POST /api/v1/pipelines/:id/builds), each
// closed-loop over its own keep-alive connection, for 60 s after a 5 s warm-up.
//
// The builds are what a real queue holds when no agent is there to take them: the account's
// default runtime is a local one that no agent serves, so each new build is elected at once (its
// RunEngine task queued) and stays elected; nothing runs a step. The list the GET clients read
// therefore grows through the run (thousands of builds) as a busy account's does.
//
// Baseline, in the same run on the same server: one client per route for BENCH_BASELINE_SECONDS,
// before the load (the latency of an idle server). Figures: per route req/s, p50/p99/max and
// non-2xx answers; the server's resident memory (peak and at the end, from /proc/<pid>/status);
// the server's event-loop delay p99 over the measured window (prom-client's default
// `sluice_server_nodejs_eventloop_lag_p99_seconds`, whose histogram each scrape resets: scraped
// once as the window starts and once as it ends); the server's and the PostgreSQL cluster's CPU
// time per request; the scheduling passes (count, mean time, builds per pass). Goals: GET p99 <= 100 ms, POST p99 <= 200 ms,
// event-loop delay p99 <= 50 ms.
//
// Knobs: BENCH_SECONDS (60), BENCH_WARMUP_SECONDS (5), BENCH_BASELINE_SECONDS (5),
// BENCH_LIST_CLIENTS (50), BENCH_CREATE_CLIENTS (50), BENCH_SERVER_NODE_FLAGS (extra node flags
// for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_SERVER_ENV (JSON object of
// extra server environment). SLUICE_TEST_DATABASE_URL, when set, is used instead of a throwaway
// PostgreSQL (a database is created in it and dropped afterwards).
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, benchConfig, seedBench } from '../dispatch/bench-server.mjs';
import { apiClients as clients, runClients } from './load-clients.mjs';
import { clusterCpuMs, metricValue, startServerProcess } from './server-process.mjs';
import { AUTOVACUUM_NAPTIME, openPostgres } from './throwaway-postgres.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 5);
const LIST_CLIENTS = Number(process.env.BENCH_LIST_CLIENTS ?? 50);
const CREATE_CLIENTS = Number(process.env.BENCH_CREATE_CLIENTS ?? 50);
const NODE_FLAGS = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const EXTRA_ENV = JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}');
const GOALS = { get_p99_ms: 100, post_p99_ms: 200, eventloop_delay_p99_ms: 50 };

const log = (line) => console.log(line);
const round = (x, digits = 1) => (x === undefined ? null : Number(x.toFixed(digits)));

/** Samples the server's RSS every second while `work` runs; returns its result and the peak. */
async function withRss(server, work) {
  let peak = await server.rssMiB();
  const timer = setInterval(() => {
    server.rssMiB().then(
      (rss) => (peak = Math.max(peak, rss)),
      () => undefined,
    );
  }, 1000);
  try {
    return { result: await work(), peak };
  } finally {
    clearInterval(timer);
  }
}

async function bench(databaseUrl, dataDir) {
  const config = benchConfig();
  const logFile = join(tmpdir(), `sluice-bench-load-${process.pid}.log`);
  const server = await startServerProcess({
    env: {
      DATABASE_URL: databaseUrl,
      SLUICE_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
      SLUICE_SECRET_KEY: config.secretKey,
      SLUICE_PUBLIC_URL: config.publicUrl,
      ...EXTRA_ENV,
    },
    nodeFlags: NODE_FLAGS,
    logFile,
  });
  log(`server pid ${server.pid} at ${server.url} on ${databaseUrl} (output: ${logFile})`);
  try {
    const { pipelineId } = await seedBench(server.url, { pipelineName: 'load' });
    log(`baseline: 1 GET and 1 POST client for ${BASELINE_SECONDS} s`);
    const baseline = await runClients(
      server.url,
      ADMIN_TOKEN,
      clients(pipelineId, 1, 1),
      BASELINE_SECONDS,
    );
    log(`baseline ${JSON.stringify(baseline)}`);
    const load = clients(pipelineId, LIST_CLIENTS, CREATE_CLIENTS);
    log(`warm-up: ${LIST_CLIENTS} GET and ${CREATE_CLIENTS} POST clients for ${WARMUP_SECONDS} s`);
    await runClients(server.url, ADMIN_TOKEN, load, WARMUP_SECONDS);
    const passesStart = passTotals(await server.scrape()); // also resets the event-loop delay histogram
    const loadStart = loadavg()[0];
    const cpuStart = await server.cpuMs();
    const dbCpuStart = dataDir === undefined ? undefined : await clusterCpuMs(dataDir);
    log(`load: ${LIST_CLIENTS} GET and ${CREATE_CLIENTS} POST clients for ${SECONDS} s`);
    const { result: routes, peak } = await withRss(server, () =>
      runClients(server.url, ADMIN_TOKEN, load, SECONDS),
    );
    const metrics = await server.scrape();
    const loopP99 = metricValue(metrics, 'sluice_server_nodejs_eventloop_lag_p99_seconds');
    const rssEnd = await server.rssMiB();
    const requests = Object.values(routes).reduce((n, route) => n + route.n, 0);
    const cpuMsPerRequest = ((await server.cpuMs()) - cpuStart) / requests;
    const dbCpuMsPerRequest =
      dbCpuStart === undefined ? null : ((await clusterCpuMs(dataDir)) - dbCpuStart) / requests;
    const passesEnd = passTotals(metrics);
    const passes = passesEnd.count - passesStart.count;
    log(`load ${JSON.stringify(routes)}`);
    return {
      routes,
      baseline,
      server_rss_mib: { peak, end: rssEnd },
      server_cpu_ms_per_request: round(cpuMsPerRequest, 2),
      database_cpu_ms_per_request: dbCpuMsPerRequest === null ? null : round(dbCpuMsPerRequest, 2),
      scheduling_passes: {
        n: passes,
        mean_ms:
          passes === 0 ? null : round(((passesEnd.sum - passesStart.sum) * 1000) / passes, 1),
        builds_per_pass:
          passes === 0 ? null : round((passesEnd.elected - passesStart.elected) / passes, 1),
      },
      eventloop_delay_p99_ms: loopP99 === undefined ? null : round(loopP99 * 1000),
      loadavg_1m: [round(loadStart, 2), round(loadavg()[0], 2)],
    };
  } finally {
    await server.stop();
  }
}

const database = await openPostgres(`sluice_bench_load_${process.pid}`);
let result;
try {
  result = await bench(database.url, database.dataDir);
} finally {
  await database.cleanup();
}
const get = result.routes['GET /api/v1/builds'];
const post = result.routes['POST /api/v1/pipelines/:id/builds'];
console.log(
  JSON.stringify({
    bench: 'load',
    seconds: SECONDS,
    clients: { list: LIST_CLIENTS, create: CREATE_CLIENTS },
    get_p99_ms: get.p99_ms,
    post_p99_ms: post.p99_ms,
    eventloop_delay_p99_ms: result.eventloop_delay_p99_ms,
    goal: GOALS,
    met: {
      get_p99: get.p99_ms !== null && get.p99_ms <= GOALS.get_p99_ms,
      post_p99: post.p99_ms !== null && post.p99_ms <= GOALS.post_p99_ms,
      eventloop_delay_p99:
        result.eventloop_delay_p99_ms !== null &&
        result.eventloop_delay_p99_ms <= GOALS.eventloop_delay_p99_ms,
    },
    // Loaded p99 over the idle server's (one client per route, same run).
    ratio_to_baseline: {
      get_p99: round(get.p99_ms / result.baseline['GET /api/v1/builds'].p99_ms, 2),
      post_p99: round(post.p99_ms / result.baseline['POST /api/v1/pipelines/:id/builds'].p99_ms, 2),
    },
    routes: result.routes,
    baseline: result.baseline,
    server_rss_mib: result.server_rss_mib,
    // The server's CPU time (user + system) over the window per answered request: what the
    // routes cost, much less sensitive to the machine's other load than the latencies.
    server_cpu_ms_per_request: result.server_cpu_ms_per_request,
    // The same for the PostgreSQL cluster's processes (null on SLUICE_TEST_DATABASE_URL's).
    database_cpu_ms_per_request: result.database_cpu_ms_per_request,
    // The scheduler's passes in the window: how many, their mean time, builds elected by each.
    scheduling_passes: result.scheduling_passes,
    // The throwaway cluster's autovacuum interval (null on SLUICE_TEST_DATABASE_URL's).
    postgres_autovacuum_naptime_s: database.dataDir === undefined ? null : AUTOVACUUM_NAPTIME,
    // Tail latencies depend on what else the machine runs: its 1-minute load at start and end.
    machine: { cpus: cpus().length, loadavg_1m: result.loadavg_1m },
  }),
);

/** The scheduling passes' histogram totals (and builds elected) in a scrape. */
function passTotals(text) {
  return {
    count: metricValue(text, 'sluice_server_scheduling_pass_seconds_count') ?? 0,
    sum: metricValue(text, 'sluice_server_scheduling_pass_seconds_sum') ?? 0,
    elected: metricValue(text, 'sluice_server_builds_elected_total') ?? 0,
  };
}
