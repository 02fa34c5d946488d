#!/usr/bin/env node
// Runs the test tiers on the compiled output (tsc -b first), their files side by side in one
// pool (scripts/lib/test-pool.mjs), and closes with a plain "N passed, N failed" line that CI
// reads, after each tier's wall time and its ten slowest files, the files that used the most CPU
// (scripts/lib/file-cpu.mjs: the suite is CPU-bound; every file's, in milliseconds, is kept in
// /var/cache/sluice/test-cpu.json) and any that left processes running.
//   unit: **/dist/**/*.test.js without .int./.e2e./.kube., a process per workspace, and the web
//         UI's component tests (apps/web/src/**/*.test.tsx, vitest).
//   int:  **/dist/**/*.int.test.js, six a process  e2e: test/dist/e2e/*.e2e.test.js
//   kube: **/dist/**/*.kube.test.js, on a real cluster: one per mode (API-only, with a node),
//         started here once and shared by the tier's files (each works in namespaces of its own).
// A compiled test file whose source is gone (moved or deleted since the last build) is named and
// not run (scripts/lib/test-sources.mjs).
// The int, e2e and kube files share one throwaway PostgreSQL server (a database per test, as
// SLUICE_TEST_DATABASE_URL does) unless SLUICE_TEST_DATABASE_URL names one.
// Filter with SLUICE_TEST_FILTER=<substring of the path>[,<another>...]. SLUICE_TEST_JOBS sets how many files
// run at once (default: the number of cores, at least 2), and two kube files run beside them.
//   --background-setup=CMD  runs the shell command CMD (its lines prefixed) from the start;
//   the kube tier waits for it: the test command builds the Kubernetes test cluster this way on
//   a fresh machine (4 to 8 minutes).
//   --beside=CMD  runs CMD as one more job of the unit tier (the test command's format and lint
//   check); its output is printed when it ends, and its failure counts as one failed test.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import {
  childrenCpu,
  clusterCpu,
  dockerdCpu,
  dockerContainersCpu,
  removeCpuGroups,
  trackFileCpu,
} from './lib/file-cpu.mjs';
import { FileTimes, runPool, runTestFile, writeTestBatch } from './lib/test-pool.mjs';
import { staleTestFiles, testSourceOf } from './lib/test-sources.mjs';
import { runWebTests, webTestFiles } from './lib/web-tests.mjs';

const root = new URL('..', import.meta.url).pathname;
const started = performance.now();
const cpuAtStart = machineCpu();
const containersCpuAtStart = dockerContainersCpu();
const dockerdCpuAtStart = dockerdCpu();
const args = process.argv.slice(2);
const flag = (name) =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) || undefined;
const setupCommand = flag('background-setup');
const besideCommand = flag('beside');
const tiers = args.filter((a) => !a.startsWith('--'));
if (tiers.length === 0) tiers.push('unit', 'int', 'e2e');
/** Any of the comma-separated substrings of SLUICE_TEST_FILTER, or every file. */
const filters = (process.env.SLUICE_TEST_FILTER ?? '').split(',');
const filter = (path) => filters.some((f) => path.includes(f));

/** Files of a tier at once (the pool's limit is over all of them but the kube tier's). */
const TIER_LIMITS = { unit: 2, int: 2, e2e: 2, kube: 2 };
// As many as cores: the suite keeps them busy (95 % measured at 3 on 2 cores), so more files
// at once only stretch each file's waits past their deadlines.
const JOBS = Number(process.env.SLUICE_TEST_JOBS) || Math.max(2, availableParallelism());
// A kube file mostly waits for pods and the API server (pod-failures: 200 s of wall for 22 s of
// its own CPU); two run at once in places of their own, beside the JOBS files (83 % CPU busy
// when kube files took two of those, leaving cores idle). One at a time, the kube lane was the
// run's tail: on a fresh machine it starts once Kubernetes is built, ~12 minutes in, and its
// files take ~18 minutes one after another.
const BESIDE = ['kube'];
/**
 * Files run in one process at most (batchesOf): every unit file of a workspace; int files a few
 * at a time, so that the tier's two lanes stay balanced. e2e and kube files run alone.
 */
const BATCH_FILES = { unit: Infinity, int: 6 };
/** A test's own limit; a kube file's `before` may still wait for the cluster's build. */
const TIMEOUT_MS = { unit: 15, int: 15, e2e: 15, kube: 40 };
/** Where the last run's file times are kept: the machine's cache, shared by every clone. */
const TIMES_FILE = '/var/cache/sluice/test-times.json';
/** Each file's CPU seconds in the last run that measured it: where to look to make it faster. */
const CPU_FILE = '/var/cache/sluice/test-cpu.json';

const say = (line) => process.stdout.write(`${line}\n`);
/** A file's CPU time as a column of the slowest list, when it was measured. */
const cpuOf = (f) => (f.cpu === undefined ? '' : `CPU ${seconds(f.cpu * 1000).padStart(10)}  `);
const seconds = (ms) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
};

/** A shell command run beside the tests; resolves with its exit status and output. */
function startCommand(command, { prefix, live }) {
  const lines = [];
  const child = spawn('bash', ['-c', command], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      if (live) say(prefix + line);
      else lines.push(line);
    });
  }
  return new Promise((resolve) => {
    child.once('error', (error) =>
      resolve({ status: `could not start (${error.message})`, lines }),
    );
    child.once('close', (code, signal) =>
      resolve({ status: signal ? `killed by ${signal}` : code, lines }),
    );
  });
}

/** The machine's busy and total CPU time so far, in seconds (Linux /proc/stat), if readable. */
function machineCpu() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1, 9);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number);
    const busy = user + nice + system + irq + softirq + steal;
    return { busy: busy / 100, total: (busy + idle + iowait) / 100 };
  } catch {
    return undefined;
  }
}

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

function filesFor(tier) {
  const all = [];
  for (const group of ['packages', 'apps', 'test']) {
    try {
      walk(join(root, group), all);
    } catch {
      /* group absent */
    }
  }
  return all
    .filter((p) => p.includes('/dist/') && p.endsWith('.test.js'))
    .filter((p) => {
      if (tier === 'int') return p.endsWith('.int.test.js');
      if (tier === 'e2e') return p.endsWith('.e2e.test.js');
      if (tier === 'kube') return p.endsWith('.kube.test.js');
      return !/\.(int|e2e|kube)\.test\.js$/.test(p);
    })
    .filter(filter)
    .filter(notStale)
    .sort();
}

/**
 * A tier's files in batches run one process each (lib/test-pool.mjs writeTestBatch): by
 * workspace (`apps/cli`, `packages/pipeline`, `test`…), at most `BATCH_FILES[tier]` files each.
 * Starting a process and loading the server's or the engine's modules costs 0.3 to 2 s of CPU,
 * more than most unit files take to run, and as much as many int files' tests.
 */
function batchesOf(tier, files) {
  const size = BATCH_FILES[tier] ?? 1;
  if (size === 1)
    return files.map((file) => ({ key: file.slice(root.length), files: [file], batch: false }));
  const groups = new Map();
  for (const file of files) {
    const [top, second] = file.slice(root.length).split('/');
    const key = top === 'apps' || top === 'packages' ? `${top}/${second}` : top;
    groups.set(key, [...(groups.get(key) ?? []), file]);
  }
  return [...groups].flatMap(([workspace, all]) => {
    const count = Math.max(1, Math.ceil(all.length / size));
    return Array.from({ length: count }, (_, i) => ({
      key: count === 1 ? `${workspace} ${tier}` : `${workspace} ${tier} ${i + 1}/${count}`,
      files: count === 1 ? all : all.slice(i * size, (i + 1) * size),
      batch: true,
    }));
  });
}

/** Where the run writes its batches: a directory of its own, removed when it ends. */
let batches;
function batchDir() {
  batches ??= mkdtempSync(join(tmpdir(), 'sluice-test-batches-'));
  return batches;
}

/** A compiled test file whose source is gone (lib/test-sources.mjs) is named, not run. */
function notStale(path) {
  const rel = path.slice(root.length);
  if (staleTestFiles(root, [rel]).length === 0) return true;
  say(`not run: ${rel}, whose source ${testSourceOf(rel)} is gone; delete the stale output`);
  return false;
}

// The testkit is compiled like the rest; the runner uses its PostgreSQL and clusters.
const testkit = () => import(join(root, 'packages/testkit/dist/index.js'));

/** One PostgreSQL server for the run's int, e2e and kube files, unless one is named already. */
async function sharedPostgres() {
  if (process.env.SLUICE_TEST_DATABASE_URL) return undefined;
  const { startPostgres } = await testkit();
  const server = await startPostgres({ local: true, maxConnections: 400 });
  process.env.SLUICE_TEST_DATABASE_URL = server.url;
  say(`PostgreSQL for the int, e2e and kube tiers: ${server.url}`);
  return server;
}

/**
 * The kube tier's shared clusters (packages/testkit/src/kubernetes/shared-clusters.ts), once the
 * background set-up (the build) has ended and the files that start a node of their own (`alone`)
 * have run, one at a time: no second node can run beside the shared one on this machine.
 */
async function sharedClusters(kubePlan, alone, setup, database) {
  let status = 0;
  if (setup !== undefined) {
    ({ status } = await setup);
    // A failed set-up is reported by the tests that need it, with its step and log.
    say(`[background set-up] finished: ${status === 0 ? 'ok' : `failed (${status})`}`);
  }
  // The kube files' control planes use the shared PostgreSQL (cluster-fixture.ts).
  await database;
  await runPool(alone, { limit: 1, tierLimits: { kube: 1 }, ready: {}, onDone });
  if (status !== 0) return undefined;
  const { startSharedClusters } = await testkit();
  const shared = await startSharedClusters(kubePlan.modes, (line) =>
    say(`[kube clusters] ${line}`),
  );
  Object.assign(process.env, shared.env);
  return shared;
}

/** `run` with the CPU time of the process whose command line holds `match` (lib/file-cpu.mjs). */
function withCpu(match, run) {
  return async () => {
    const cpu = trackFileCpu(match);
    const result = await run().catch(async (error) => {
      await cpu.stop();
      throw error;
    });
    return { ...result, cpu: await cpu.stop() };
  };
}

const tally = {};
const times = new FileTimes(TIMES_FILE);
const cpuTimes = new FileTimes(CPU_FILE);
const failures = [];
const leftovers = [];
const jobs = [];
for (const tier of tiers) {
  tally[tier] = { passed: 0, failed: 0, skipped: 0, files: [], first: undefined, last: 0 };
  for (const { key, files, batch } of batchesOf(tier, filesFor(tier))) {
    const file = batch ? writeTestBatch(batchDir(), root, key, files) : files[0];
    jobs.push({
      tier,
      name: batch ? `${key} (${files.length} files)` : key,
      file,
      timesKey: key,
      fileCount: files.length,
      estimate: times.get(key),
      run: withCpu(file, () => runTestFile(file, TIMEOUT_MS[tier] * 60_000)),
    });
  }
  const web = tier === 'unit' ? webTestFiles(filter) : [];
  if (web.length > 0) {
    jobs.push({
      tier,
      name: `web components (${web.length} files, vitest)`,
      estimate: times.get('web components'),
      timesKey: 'web components',
      run: async () => ({ ...(await runWebTests(web)), failures: [], report: '' }),
    });
  }
}
if (besideCommand !== undefined && tiers.includes('unit')) {
  jobs.push({
    tier: 'unit',
    name: besideCommand,
    estimate: Infinity,
    run: withCpu(besideCommand, async () => {
      const { status, lines } = await startCommand(besideCommand, { live: false });
      const ok = status === 0;
      return {
        passed: ok ? 1 : 0,
        failed: ok ? 0 : 1,
        skipped: 0,
        failures: ok ? [] : [`${besideCommand}: exit ${status}`],
        report: lines.join('\n'),
      };
    }),
  });
}

say(
  `\n== ${jobs.length} jobs (${tiers.map((t) => `${t} ${jobs.filter((j) => j.tier === t).length}`).join(', ')}), up to ${JOBS} at once ==`,
);
const setup =
  setupCommand === undefined
    ? undefined
    : (say(`[background set-up] started: ${setupCommand}`),
      startCommand(setupCommand, { prefix: '[background set-up] ', live: true }));
// The kube tier's control planes use it too (test/e2e/cluster-fixture.ts startControlPlane).
const needsDatabase = jobs.some((j) => j.tier !== 'unit');
const postgres = needsDatabase ? sharedPostgres() : Promise.resolve(undefined);
const kubeFiles = jobs.filter((j) => j.tier === 'kube').map((j) => join(root, j.name));
const kubePlan = kubeFiles.length > 0 ? await (await testkit()).planKubeTier(kubeFiles) : undefined;
const alone = jobs.filter((j) => kubePlan?.alone.includes(join(root, j.name)));
// The files that need only the API-only cluster go first, so that it can stop early.
for (const job of jobs) {
  if (kubePlan?.modesOf[job.file]?.join() === 'api-only') job.first = true;
}
const clusters = kubePlan
  ? sharedClusters(
      kubePlan,
      alone,
      setup,
      postgres.catch(() => undefined),
    )
  : undefined;
const ready = {
  int: postgres.catch(() => undefined),
  e2e: postgres.catch(() => undefined),
  // sharedClusters waits for the PostgreSQL server too.
  kube: clusters?.catch((error) => say(`[kube clusters] could not start: ${error.message}`)),
};
const tierLimits = Object.fromEntries(tiers.map((t) => [t, TIER_LIMITS[t] ?? JOBS]));

/** Stops the run's shared PostgreSQL server and clusters (each only once). */
let stopping;
const stopShared = () =>
  (stopping ??= (async () => {
    await (await postgres.catch(() => undefined))?.stop().catch(() => undefined);
    const kubeClusters = await clusters?.catch(() => undefined);
    await kubeClusters
      ?.stop()
      .catch((error) => say(`[kube clusters] could not stop: ${error.message}`));
  })());
// Ctrl-C or a CI's SIGTERM: the test files' processes end with this one, the shared servers
// (started here, outliving no one else) are stopped before it goes.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    say(`\n${signal}: stopping the shared PostgreSQL server and clusters`);
    void stopShared().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

// A shared cluster stops once the last file that may use it has run, its CPU measured first:
// an idle API server, etcd and controller manager cost ~7 CPU-s a minute.
const kubeLeft = new Set(kubePlan?.shared ?? []);
const stoppedModes = new Set();
const clusterStops = [];
/** CPU of the clusters' components (by name) and of their pods, measured as each stopped. */
const clustersCpu = new Map();
let podsCpu = 0;
async function stopCluster(mode) {
  const shared = await clusters?.catch(() => undefined);
  const data = shared?.description.clusters[mode];
  if (data === undefined || 'failed' in data) return;
  const { components, pods } = clusterCpu(data.dir);
  for (const [name, cpu] of components) clustersCpu.set(name, (clustersCpu.get(name) ?? 0) + cpu);
  podsCpu += pods ?? 0;
  await shared.stop(mode).then(
    () => say(`[kube clusters] ${mode}: stopped (its last file has run)`),
    (error) => say(`[kube clusters] ${mode}: could not stop: ${error.message}`),
  );
}
function releaseClusters(job) {
  if (!kubeLeft.delete(job.file)) return;
  for (const mode of kubePlan.modes) {
    if (stoppedModes.has(mode)) continue;
    if ([...kubeLeft].some((file) => kubePlan.modesOf[file].includes(mode))) continue;
    stoppedModes.add(mode);
    clusterStops.push(stopCluster(mode));
  }
}

/** Counts a finished job and prints its report. */
function onDone(job, result, ms) {
  releaseClusters(job);
  const t = tally[job.tier];
  t.passed += result.passed;
  t.failed += result.failed;
  t.skipped += result.skipped;
  const now = performance.now();
  t.first = Math.min(t.first ?? now - ms, now - ms);
  t.last = Math.max(t.last, now);
  t.files.push({ name: job.name, ms, cpu: result.cpu?.seconds, count: job.fileCount ?? 1 });
  if (result.cpu?.seconds !== undefined) t.cpu = (t.cpu ?? 0) + result.cpu.seconds;
  if (result.cpu?.left > 0) {
    leftovers.push(`${job.name}: ${result.cpu.left} of its processes outlived it`);
  }
  times.set(job.timesKey ?? job.name, ms);
  if (result.cpu !== undefined) cpuTimes.set(job.timesKey ?? job.name, result.cpu.seconds * 1000);
  for (const test of result.failures) failures.push(`${job.name}: ${test}`);
  const mark = result.failed > 0 ? 'FAILED' : 'ok';
  say(
    `\n── ${job.tier} ${job.name} · ${seconds(ms)} · ${result.passed} passed, ${result.failed} failed · ${mark}`,
  );
  if (result.report) say(result.report);
}

await runPool(
  jobs.filter((j) => !alone.includes(j)),
  { limit: JOBS, tierLimits, ready, onDone, beside: BESIDE },
);
// A run cut short says nothing about the files it did not reach: only a finished one is kept.
times.save();
if (batches !== undefined) rmSync(batches, { recursive: true, force: true });
cpuTimes.save();

// Before they stop: what the shared servers and clusters (the runner's children) cost.
// Only our own server's: a SLUICE_TEST_DATABASE_URL server has no directory here.
const postmaster = await postgres
  .then((server) =>
    server?.dir === undefined
      ? undefined
      : readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
  )
  .catch(() => undefined);
await Promise.all(clusterStops);
const sharedCpu = childrenCpu(postmaster ? [Number(postmaster)] : []);
for (const [name, cpu] of clustersCpu) sharedCpu.set(name, (sharedCpu.get(name) ?? 0) + cpu);
const dockerdAtEnd = dockerdCpu();
const runnerCpu = process.cpuUsage();
await stopShared();
if (setup !== undefined && clusters === undefined) await setup;

let passed = 0;
let failed = 0;
let skipped = 0;
say('\n== where the time went ==');
for (const tier of tiers) {
  const t = tally[tier];
  passed += t.passed;
  failed += t.failed;
  skipped += t.skipped;
  const wall = t.first === undefined ? 0 : t.last - t.first;
  const cpu =
    t.cpu === undefined ? '' : `; its files' processes used ${seconds(t.cpu * 1000)} of CPU`;
  say(
    `${tier}: ${t.passed} passed, ${t.failed} failed in ${t.files.reduce((n, f) => n + f.count, 0)} files, ${seconds(wall)} from its first file's start to its last file's end${cpu}`,
  );
  const slowest = t.files.sort((a, b) => b.ms - a.ms).slice(0, 10);
  for (const f of slowest) say(`  ${seconds(f.ms).padStart(10)}  ${cpuOf(f)}${f.name}`);
}
// The suite is CPU-bound: what a file costs the run is its CPU time more than its wall time.
const files = Object.values(tally).flatMap((t) => t.files);
if (files.some((f) => f.cpu !== undefined)) {
  say("most CPU (the file's own processes; its containers and the shared servers not counted):");
  // The web components (vitest, started from this runner) have no process of their own to measure.
  const measured = files.filter((f) => f.cpu !== undefined);
  const hungriest = measured.sort((a, b) => b.cpu - a.cpu).slice(0, 15);
  for (const f of hungriest) say(`  ${seconds(f.cpu * 1000).padStart(10)} CPU  ${f.name}`);
}
if (leftovers.length > 0) {
  say('\nprocesses left running by test files (each file must stop what it starts):');
  for (const line of leftovers) say(`  ${line}`);
}
removeCpuGroups();
if (failures.length > 0) {
  say('\nfailed:');
  for (const f of failures) say(`  ${f}`);
}
const since = Number(process.env.SLUICE_TEST_STARTED_AT);
const total = Number.isFinite(since) && since > 0 ? Date.now() - since * 1000 : undefined;
const cpuAtEnd = machineCpu();
if (cpuAtStart !== undefined && cpuAtEnd !== undefined) {
  const busy = cpuAtEnd.busy - cpuAtStart.busy;
  const total = cpuAtEnd.total - cpuAtStart.total;
  // What the cores had to give: how much faster more parallelism could make the run.
  say(
    `CPU: ${seconds(busy * 1000)} busy of ${seconds(total * 1000)} the machine's cores had (${Math.round((100 * busy) / total)} %)`,
  );
  const ofFiles = files.reduce((sum, f) => sum + (f.cpu ?? 0), 0);
  const containersCpu = dockerContainersCpu();
  if (ofFiles > 0 && containersCpu !== undefined && containersCpuAtStart !== undefined) {
    const ofContainers = containersCpu - containersCpuAtStart;
    const ofShared = [...sharedCpu.values()].reduce((sum, cpu) => sum + cpu, 0);
    const ofRunner = (runnerCpu.user + runnerCpu.system) / 1e6;
    const ofDockerd =
      dockerdAtEnd === undefined || dockerdCpuAtStart === undefined
        ? 0
        : Math.max(0, dockerdAtEnd - dockerdCpuAtStart);
    const rest = Math.max(
      0,
      busy - ofFiles - ofContainers - ofShared - podsCpu - ofRunner - ofDockerd,
    );
    say(
      `  ${seconds(ofFiles * 1000)} the test files' processes, ${seconds(ofContainers * 1000)} Docker's containers, ${seconds(ofDockerd * 1000)} dockerd, ${seconds(ofShared * 1000)} the shared servers and clusters, ${seconds(podsCpu * 1000)} the shared node's pods, ${seconds(ofRunner * 1000)} this runner, ${seconds(rest * 1000)} the rest (the kernel, containerd's shims, anything else on the machine)`,
    );
    const heaviest = [...sharedCpu]
      .sort((a, b) => b[1] - a[1])
      .filter(([, cpu]) => cpu >= 1)
      .slice(0, 8);
    if (heaviest.length > 0) {
      say(
        `  shared: ${heaviest.map(([name, cpu]) => `${name} ${seconds(cpu * 1000)}`).join(', ')}`,
      );
    }
  }
}
say(
  `\nwall time: tests ${seconds(performance.now() - started)}${total === undefined ? '' : `, the whole command (set-up included) ${seconds(total)}`}`,
);
say(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 ? 1 : 0;
