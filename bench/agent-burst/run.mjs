#!/usr/bin/env node
// agent-burst: the burst case of test/e2e/runner-api-only.kube.test.ts at full size, too long
// for the test command (which runs 50 builds): 200 builds at once for one agent with a
// concurrency bound of 3, on an API-only cluster of its own; every build's six tasks must be
// reported and the bound never passed. BENCH_BUILDS changes the number.
//   builds              what was asked
//   seconds             the burst's wall time (the file, its cluster's start included)
//   baseline_seconds    the same case at one tenth of the builds, in the same run
//   ratio               seconds / baseline_seconds, per build: how a build's cost grows with the queue
//   ok                  both runs passed
import { spawnSync } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;
const BUILDS = Number(process.env.BENCH_BUILDS ?? 200);
const file = `${root}test/dist/e2e/runner-api-only.kube.test.js`;

function run(builds) {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--test', '--test-reporter=spec', '--test-name-pattern=a burst of', file],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, SLUICE_BURST_BUILDS: String(builds) },
    },
  );
  return { seconds: (performance.now() - started) / 1000, ok: result.status === 0 };
}

const baselineBuilds = Math.max(1, Math.round(BUILDS / 10));
const baseline = run(baselineBuilds);
const burst = run(BUILDS);
const round = (n) => Math.round(n * 10) / 10;
console.log(
  JSON.stringify({
    builds: BUILDS,
    seconds: round(burst.seconds),
    baseline_seconds: round(baseline.seconds),
    ratio: round(burst.seconds / BUILDS / (baseline.seconds / baselineBuilds)),
    ok: burst.ok && baseline.ok,
  }),
);
