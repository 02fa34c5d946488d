#!/usr/bin/env node
// engine-overhead: a 10-step trivial pipeline run by the engine, against 10 sequential bare
// container runs of the same image and command through the Docker API (create, attach, start,
// wait, remove: what `docker run --rm` does), in the same process. Rounds alternate so drift on
// the machine hits both sides; the figures are medians. Goal: ratio <= 1.3.
import { DEFAULT_DOCKER_HOST, DockerClient } from '@sluice/docker';
import { parsePipeline } from '@sluice/pipeline';
import { runBuild, volumeNameFor } from '@sluice/engine';

const STEPS = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const IMAGE = 'sluice/busybox:1';
const VOLUME_KEY = 'bench-engine-overhead';
const docker = DockerClient.create({
  host: process.env.DOCKER_HOST || DEFAULT_DOCKER_HOST,
});

const yaml = ['version: "1.0"', 'steps:'];
for (let i = 0; i < STEPS; i++)
  yaml.push(`  step_${i}:`, `    image: ${IMAGE}`, '    commands:', `      - echo step ${i}`);
const parsed = parsePipeline(yaml.join('\n'), { file: 'bench.yml' });
if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));

async function bare() {
  const start = performance.now();
  for (let i = 0; i < STEPS; i++) {
    const c = await docker.start(
      {
        name: `bench-bare-${process.pid}-${i}`,
        image: IMAGE,
        entrypoint: ['sh', '-c'],
        cmd: [`echo step ${i}`],
        env: [],
        binds: [],
        labels: {},
      },
      () => {},
    );
    const code = await c.wait();
    if (code !== 0) throw new Error(`bare run exited ${code}`);
    await docker.removeContainer(c.id);
  }
  return performance.now() - start;
}

async function pipeline(round) {
  const start = performance.now();
  const summary = await runBuild(parsed.pipeline, {
    docker,
    buildId: `bench-${process.pid}-${round}`,
    facts: { pipelineName: 'bench' },
    volumeKey: VOLUME_KEY,
    onEvent: () => {},
  });
  if (summary.result !== 'success')
    throw new Error(`pipeline ${summary.result}: ${summary.reason}`);
  return performance.now() - start;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
await bare(); // warm-up: image and page cache
await pipeline('warmup');
const bareTimes = [];
const pipelineTimes = [];
for (let round = 0; round < ROUNDS; round++) {
  bareTimes.push(await bare());
  pipelineTimes.push(await pipeline(round));
  console.log(
    `round ${round + 1}/${ROUNDS}: bare ${bareTimes.at(-1).toFixed(0)} ms, pipeline ${pipelineTimes.at(-1).toFixed(0)} ms`,
  );
}
await docker.removeVolume(volumeNameFor(VOLUME_KEY));
const bareMs = median(bareTimes);
const pipelineMs = median(pipelineTimes);
console.log(
  JSON.stringify({
    bench: 'engine-overhead',
    steps: STEPS,
    rounds: ROUNDS,
    pipeline_ms: Math.round(pipelineMs),
    baseline_ms: Math.round(bareMs),
    per_step_overhead_ms: Math.round((pipelineMs - bareMs) / STEPS),
    ratio: Number((pipelineMs / bareMs).toFixed(3)),
    goal: { ratio: 1.3 },
  }),
);
