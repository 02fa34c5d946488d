#!/usr/bin/env node
// engine-read: how many lines a second one engine takes from a step that prints as fast as it
// can, through the engine's own log path — the Docker attach stream demultiplexed and split into
// lines (@sluice/docker), masked for two secrets (SecretMasker), turned into API lines with their
// time (engine-api-events.ts), batched into chunks and spooled to disk (BuildOutbox, LogSpool),
// each chunk encoded as the engine's post body would be and acknowledged at once (no server: the
// server's own share is server-ingest.mjs). Every line is checked to arrive once and in order.
//   lines_per_s       BENCH_ENGINE_LINES (200,000) lines of `seq` over the time from the
//                     container's start to the last chunk acknowledged
//   cpu_ms_per_10k    the engine process's CPU (user + system) per 10,000 lines
//   baseline          the same container's output only demultiplexed and its newlines counted,
//                     in the same run: what Docker itself delivers here
// Profile it with `node --cpu-prof --cpu-prof-dir=DIR bench/log-latency/engine-read.mjs`.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Docker from 'dockerode';
import { ensureDockerEngine, ensureTestImages } from '@sluice/testkit';
import { startContainer } from '../../packages/docker/dist/container-run.js';
import { BuildOutbox } from '../../apps/engine/dist/process/build-outbox.js';
import { LogSpool } from '../../apps/engine/dist/process/log-spool.js';
import { SecretMasker } from '../../apps/engine/dist/base/secret-masker.js';
import { toApiItem } from '../../apps/engine/dist/process/engine-api-events.js';

const LINES = Number(process.env.BENCH_ENGINE_LINES ?? 200_000);
const IMAGE = 'sluice/busybox:1';
const docker = new Docker();

function spec(name) {
  return {
    name: `sluice-bench-engine-read-${name}-${process.pid}`,
    image: IMAGE,
    cmd: ['seq', '1', String(LINES)],
    env: [],
    binds: [],
    labels: { 'sluice.bench': 'engine-read' },
  };
}

/** Docker's own delivery: the attach stream demultiplexed, newlines counted, nothing else. */
async function baseline() {
  const container = await docker.createContainer({ ...toCreate(spec('baseline')) });
  const stream = await container.attach({ stream: true, stdout: true, stderr: true });
  let lines = 0;
  const count = new Writable({
    write(chunk, _enc, done) {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      done();
    },
  });
  docker.modem.demuxStream(stream, count, count);
  const ended = new Promise((resolve) => stream.once('end', resolve));
  const started = performance.now();
  await container.start();
  await container.wait();
  await ended;
  const seconds = (performance.now() - started) / 1000;
  await container.remove({ force: true });
  if (lines !== LINES) throw new Error(`baseline read ${lines} lines of ${LINES}`);
  return { lines_per_s: Math.round(lines / seconds), seconds: round(seconds) };
}

function toCreate(s) {
  return {
    name: s.name,
    Image: s.image,
    Cmd: s.cmd,
    Labels: s.labels,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
  };
}

/** The engine's path, as execute-step.ts and remote-build.ts wire it. */
async function enginePath() {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-bench-engine-read-'));
  const spool = await LogSpool.open(join(dir, 'spool'));
  let received = 0;
  let outOfOrder = 0;
  let bodyChars = 0;
  const outbox = BuildOutbox.create({
    spool,
    post: async (item) => {
      // The protocol client sends the chunk as JSON: its encoding is the engine's cost too.
      bodyChars += JSON.stringify({ seq: item.seq, lines: item.lines }).length;
      for (const line of item.lines) if (line.line !== String(++received)) outOfOrder++;
    },
  });
  const masker = new SecretMasker();
  masker.add('s3cr3t-token-value');
  masker.add('another-secret');
  const cpu = process.cpuUsage();
  const started = performance.now();
  const container = await startContainer(docker, spec('engine'), (stream, line) => {
    const item = toApiItem({
      type: 'step-log',
      step: 'burst',
      stream,
      line: masker.mask(line),
      at: Date.now(),
    });
    if (item?.kind === 'line') outbox.line(item.line);
  });
  await container.wait();
  await outbox.drain();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await docker.getContainer(container.id).remove({ force: true });
  await spool.remove();
  await rm(dir, { recursive: true, force: true });
  if (received !== LINES || outOfOrder !== 0)
    throw new Error(
      `the engine path delivered ${received} of ${LINES}, ${outOfOrder} out of order`,
    );
  return {
    lines_per_s: Math.round(LINES / seconds),
    seconds: round(seconds),
    cpu_ms_per_10k: round(((used.user + used.system) / 1000 / LINES) * 10_000),
    body_mb: round(bodyChars / 1e6),
  };
}

const round = (x) => Math.round(x * 100) / 100;

await ensureDockerEngine();
await ensureTestImages();
const loadStart = loadavg()[0];
// A warm-up, so both measured runs find the image and the engine's code hot.
await enginePath();
const base = await baseline();
const engine = await enginePath();
const loadEnd = loadavg()[0];
console.log(
  `engine path: ${engine.lines_per_s} lines/s (${engine.cpu_ms_per_10k} ms CPU per 10,000 lines); Docker alone: ${base.lines_per_s} lines/s`,
);
console.log(
  JSON.stringify({
    bench: 'log-latency/engine-read',
    lines: LINES,
    ...engine,
    baseline_lines_per_s: base.lines_per_s,
    ratio: round(engine.lines_per_s / base.lines_per_s),
    load: [round(loadStart), round(loadEnd)],
  }),
);
