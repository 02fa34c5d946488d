#!/usr/bin/env node
// agent-chaos: the full soak of test/e2e/agent-chaos.e2e.test.ts, too long for the test command
// (about 4 minutes of two cores): 200 builds while `sluice agent` is SIGKILLed 100 times; none
// may be lost or run twice. The test command runs the same file at 50 builds and 20 kills.
// BENCH_BUILDS and BENCH_KILLS change the numbers.
//   builds, kills       what was asked
//   seconds             the file's wall time (the burst, its kills and every build's end)
//   baseline_seconds    the same file at one tenth of the builds and no kill, in the same run
//   ratio               seconds / baseline_seconds, per build: what the kills cost a build
//   ok                  every build succeeded and ran exactly once
import { spawnSync } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;
const BUILDS = Number(process.env.BENCH_BUILDS ?? 200);
const KILLS = Number(process.env.BENCH_KILLS ?? 100);
const file = `${root}test/dist/e2e/agent-chaos.e2e.test.js`;

function run(builds, kills) {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', file], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, SLUICE_CHAOS_BUILDS: String(builds), SLUICE_CHAOS_KILLS: String(kills) },
  });
  return { seconds: (performance.now() - started) / 1000, ok: result.status === 0 };
}

const baselineBuilds = Math.max(1, Math.round(BUILDS / 10));
const baseline = run(baselineBuilds, 0);
const chaos = run(BUILDS, KILLS);
const round = (n) => Math.round(n * 10) / 10;
console.log(
  JSON.stringify({
    builds: BUILDS,
    kills: KILLS,
    seconds: round(chaos.seconds),
    baseline_seconds: round(baseline.seconds),
    ratio: round(chaos.seconds / BUILDS / (baseline.seconds / baselineBuilds)),
    ok: chaos.ok && baseline.ok,
  }),
);
process.exitCode = chaos.ok && baseline.ok ? 0 : 1;
