#!/usr/bin/env node
// local-start: how long `sluice up`'s local runtime takes from a build's creation to its first
// step, against a bare `docker run` of the same image and command, in the same run. `sluice up`
// is the built CLI on PGlite in a temp directory; 20 one-step builds (BENCH_BUILDS) are made
// through the API one after another, each after a warm-up build, alternating with a timed
// `docker run --rm` so that drift on the machine hits both sides.
//   p50_s, p99_s   build created (createdAt) → first step started (timing.firstStepStartedAt)
//   phases_s       the median of each phase of the build's timing record: queued → elected →
//                  dispatched → engine process started → engine running → first step
//   docker_run_s   the median `docker run --rm IMAGE sh -c 'echo hello'`, create to exit
//   ratio          p50_s / docker_run_s
//   engine_bundle  whether engines ran from the engine bundle (`npm run build`) at the start and
//                  the end of the run, or from the command tree (after a `tsc -b` alone)
// Goal: ratio at most 2.
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { createClient } from '@sluice/protocol';
import { freshEngineBundle } from '../../apps/cli/bin/engine-bundle.js';
import { ensureDockerEngine, ensureTestImages, makeTempDir, waitFor } from '@sluice/testkit';
import { startSluice, waitForUp } from '../../test/dist/e2e/cli-harness.js';
import { createPipelines } from '../../test/dist/e2e/control-plane-seed.js';

const BUILDS = Number(process.env.BENCH_BUILDS ?? 20);
const IMAGE = 'sluice/busybox:1';
const COMMAND = 'echo hello';
const PROJECT = 'bench';
const PIPELINE = `version: "1.0"\nsteps:\n  s:\n    image: ${IMAGE}\n    commands: ["${COMMAND}"]\n`;
/** The timing record's stamps in order, and the name of the phase that ends at each. */
const PHASES = [
  ['queuedAt', null],
  ['electedAt', 'queued_to_elected'],
  ['dispatchedAt', 'elected_to_dispatched'],
  ['objectsCreatedAt', 'dispatched_to_engine_process'],
  ['engineStartedAt', 'engine_process_to_running'],
  ['firstStepStartedAt', 'running_to_first_step'],
];

const seconds = (ms) => Math.round(ms) / 1000;
const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
};
const median = (xs) => percentile(xs, 0.5);
const log = (line) => console.log(line);

function dockerRun() {
  const start = performance.now();
  const result = spawnSync('docker', ['run', '--rm', IMAGE, 'sh', '-c', COMMAND], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`docker run failed: ${result.stderr}`);
  return performance.now() - start;
}

/** One build: created, run to the end; its created → first step and its phases in ms. */
async function oneBuild(admin, pipelineId) {
  const created = await admin.call('createBuild', { params: { pipelineId }, body: {} });
  const build = await waitFor(
    () => admin.call('getBuild', { params: { buildId: created.id } }),
    (b) => b.timing.finishedAt !== undefined,
    { what: `build ${created.id} to finish`, intervalMs: 50, timeoutMs: 120_000 },
  );
  if (build.status !== 'success')
    throw new Error(`build ${build.id} ${build.status}: ${build.reason}`);
  const at = (key) => Date.parse(build.timing[key]);
  const phases = {};
  for (let i = 1; i < PHASES.length; i++) {
    const [key, name] = PHASES[i];
    phases[name] = at(key) - at(PHASES[i - 1][0]);
  }
  return { toFirstStep: at('firstStepStartedAt') - Date.parse(build.createdAt), phases };
}

await ensureDockerEngine();
await ensureTestImages();
const temp = await makeTempDir('sluice-bench-local-start-');
const cli = startSluice(['up', '--port', '0', '--data-dir', temp.path]);
try {
  const { url, token } = await waitForUp(cli);
  const admin = createClient({ baseUrl: url, token });
  const { p: pipelineId } = await createPipelines(admin, PROJECT, { p: PIPELINE });
  const loadAtStart = loadavg()[0];
  const bundledAtStart = freshEngineBundle() !== undefined;
  dockerRun(); // warm-up: image and page cache
  await oneBuild(admin, pipelineId);
  const builds = [];
  const runs = [];
  for (let i = 0; i < BUILDS; i++) {
    builds.push(await oneBuild(admin, pipelineId));
    runs.push(dockerRun());
    log(
      `build ${i + 1}/${BUILDS}: created → first step ${builds.at(-1).toFirstStep} ms, docker run ${Math.round(runs.at(-1))} ms`,
    );
  }
  const p50 = median(builds.map((b) => b.toFirstStep));
  const dockerRunMs = median(runs);
  const phases = Object.fromEntries(
    PHASES.slice(1).map(([, name]) => [name, seconds(median(builds.map((b) => b.phases[name])))]),
  );
  console.log(
    JSON.stringify({
      bench: 'local-start',
      builds: BUILDS,
      p50_s: seconds(p50),
      p99_s: seconds(
        percentile(
          builds.map((b) => b.toFirstStep),
          0.99,
        ),
      ),
      phases_s: phases,
      docker_run_s: seconds(dockerRunMs),
      ratio: Math.round((p50 / dockerRunMs) * 100) / 100,
      goal: { ratio: 2 },
      met: p50 / dockerRunMs <= 2,
      engine_bundle: [bundledAtStart, freshEngineBundle() !== undefined],
      machine: {
        cpus: cpus().length,
        loadavg_1m: [Math.round(loadAtStart * 100) / 100, Math.round(loadavg()[0] * 100) / 100],
      },
    }),
  );
} finally {
  cli.child.kill('SIGTERM');
  await cli.done;
  spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-p`]);
  await temp.cleanup();
}
