#!/usr/bin/env node
// step-types: what one large registered step type costs a `sluice server` (PGlite). Issue 33
// measured, for a valid 980 KB document (a 490,000-item list in an `x-` field): the PUT held
// the event loop 12.6 s, then every build creation took 8.1 s (66 ms without it), a 5-line
// validation 6.5 s, listing step types 4.3 s. Measured here, one after another on one server:
//   - baseline: build creation, validation and listing before the document is stored;
//   - put: the PUT's wall time, and /api/health asked every 10 ms meanwhile, one at a time (its
//     slowest answer says whether the parse held up other requests);
//   - after: the same three requests with the document stored, as ratios to the baseline (and
//     the first of each, which a server that parses on first use pays).
// Medians in seconds over BENCH_STEP_TYPES_RUNS runs. Goal: health under 0.1 s during the
// PUT, and each request within 1.5x of its baseline. BENCH_STEP_TYPES_ITEMS sizes the list;
// BENCH_SLUICE_BIN runs another build of the CLI (another worktree's, for a before/after).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@sluice/protocol';
import { startSluiceServer } from '../lib/sluice-server.mjs';
import { healthWhile } from '../lib/health-while.mjs';
import { median, round, seconds } from '../lib/stats.mjs';

const RUNS = Number(process.env.BENCH_STEP_TYPES_RUNS ?? 5);
const ITEMS = Number(process.env.BENCH_STEP_TYPES_ITEMS ?? 490_000);
const TOKEN = 'slu_u_bench-step-types-token-0123456789';
const BIN =
  process.env.BENCH_SLUICE_BIN ?? new URL('../../apps/cli/bin/sluice.js', import.meta.url).pathname;

const PIPELINE = 'version: "1.0"\nsteps:\n  build:\n    image: alpine\n    commands: [make]\n';
const STEP_TYPE = [
  "version: '1.0'",
  'kind: step-type',
  'metadata:',
  '  name: acme/big',
  '  version: 1.0.0',
  `  x-padding: [${'1,'.repeat(ITEMS - 1)}1]`,
  'spec:',
  '  steps:',
  '    hello:',
  '      image: alpine',
  '      commands: [echo hi]',
  '',
].join('\n');

const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-step-types-'));
const server = await startSluiceServer({ bin: BIN, dataDir: dir, token: TOKEN });
try {
  const { url } = server;
  const admin = createClient({ baseUrl: url, token: TOKEN });
  await admin.call('createProject', { body: { name: 'bench' } });
  const pipeline = await admin.call('createPipeline', {
    params: { project: 'bench' },
    body: { name: 'app', yaml: PIPELINE },
  });
  const requests = {
    create_build: () =>
      admin.call('createBuild', { params: { pipelineId: pipeline.id }, body: {} }),
    validate: () => admin.call('validatePipeline', { body: { yaml: PIPELINE } }),
    list: () => admin.call('listStepTypes'),
  };
  const { medians: baseline } = await timeAll(requests);
  const put = await healthWhile(url, () =>
    admin.call('putStepType', { body: { yaml: STEP_TYPE } }),
  );
  const { medians: after, firsts } = await timeAll(requests);
  const ratio = Object.fromEntries(
    Object.keys(requests).map((name) => [name, round(after[name] / baseline[name], 2)]),
  );
  console.log(
    JSON.stringify({
      bench: 'step-types',
      runs: RUNS,
      bytes: Buffer.byteLength(STEP_TYPE),
      items: ITEMS,
      baseline_s: roundAll(baseline),
      put_s: round(put.seconds),
      health_during_put: {
        answered: put.healths.length,
        p50_s: round(median(put.healths)),
        max_s: round(Math.max(...put.healths)),
      },
      after_s: roundAll(after),
      after_first_s: roundAll(firsts),
      ratio,
      goal: { health_max_s: 0.1, ratio: 1.5 },
      machine: { cpus: cpus().length, load1: round(loadavg()[0] ?? 0, 2) },
    }),
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** The median seconds of RUNS calls of each request, one after another, and the first's. */
async function timeAll(requests) {
  const medians = {};
  const firsts = {};
  for (const [name, call] of Object.entries(requests)) {
    const samples = [];
    for (let i = 0; i < RUNS; i++) {
      const start = process.hrtime.bigint();
      await call();
      samples.push(seconds(start));
    }
    medians[name] = median(samples);
    firsts[name] = samples[0];
  }
  return { medians, firsts };
}

function roundAll(record) {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, round(value)]));
}
