#!/usr/bin/env node
// parallel: a `type: parallel` block of 8 steps that each sleep SLEEP_S seconds, against a
// pipeline of one such step, run by the engine in the same process. Both pay the build's set-up
// (network, sandbox, volume); the parallel one should cost little more than its slowest child.
// Rounds alternate so drift on the machine hits both sides; the figures are medians.
//   ratio = parallel_ms / single_ms.  Goal: ratio <= 1.3.
import { DEFAULT_DOCKER_HOST, DockerClient } from '@sluice/docker';
import { parsePipeline } from '@sluice/pipeline';
import { runBuild, volumeNameFor } from '@sluice/engine';

const WIDTH = 8;
const SLEEP_S = Number(process.env.BENCH_SLEEP_S ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IMAGE = 'sluice/busybox:1';
const VOLUME_KEY = 'bench-parallel';
const docker = DockerClient.create({ host: process.env.DOCKER_HOST || DEFAULT_DOCKER_HOST });

function parse(yaml) {
  const parsed = parsePipeline(yaml, { file: 'bench.yml' });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.pipeline;
}
const step = (name, indent) =>
  [`${name}:`, `  image: ${IMAGE}`, `  commands: ['sleep ${SLEEP_S}']`]
    .map((l) => ' '.repeat(indent) + l)
    .join('\n');
const single = parse(`version: '1.0'\nsteps:\n${step('only', 2)}\n`);
const children = Array.from({ length: WIDTH }, (_, i) => step(`lane_${i}`, 6)).join('\n');
const parallel = parse(
  `version: '1.0'\nsteps:\n  block:\n    type: parallel\n    steps:\n${children}\n`,
);

async function timed(pipeline, label) {
  const start = performance.now();
  const summary = await runBuild(pipeline, {
    docker,
    buildId: `bench-parallel-${process.pid}-${label}`,
    facts: { pipelineName: 'bench' },
    volumeKey: VOLUME_KEY,
    onEvent: () => {},
  });
  if (summary.result !== 'success')
    throw new Error(`${label}: ${summary.result} ${summary.reason}`);
  return performance.now() - start;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
await timed(single, 'warmup');
const singleTimes = [];
const parallelTimes = [];
for (let round = 0; round < ROUNDS; round++) {
  singleTimes.push(await timed(single, `single-${round}`));
  parallelTimes.push(await timed(parallel, `parallel-${round}`));
  console.log(
    `round ${round + 1}/${ROUNDS}: one step ${singleTimes.at(-1).toFixed(0)} ms, ` +
      `${WIDTH} in parallel ${parallelTimes.at(-1).toFixed(0)} ms`,
  );
}
await docker.removeVolume(volumeNameFor(VOLUME_KEY));
const singleMs = median(singleTimes);
const parallelMs = median(parallelTimes);
console.log(
  JSON.stringify({
    bench: 'parallel',
    width: WIDTH,
    sleep_s: SLEEP_S,
    rounds: ROUNDS,
    parallel_ms: Math.round(parallelMs),
    single_ms: Math.round(singleMs),
    ratio: Math.round((parallelMs / singleMs) * 100) / 100,
    goal: 1.3,
  }),
);
