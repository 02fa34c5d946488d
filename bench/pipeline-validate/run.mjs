#!/usr/bin/env node
// pipeline-validate: how long a pipeline at the size limit takes to validate. The document is
// just under 1 MiB: 14,000 freestyle steps (issue 14 measured 6.5–8.4 s for `sluice validate` and
// 15.9 s for the apply route, with every other request waiting). Measured, one after another:
//   - library: `parsePipeline` in this process, the 1 MiB document and a 100-step one (the
//     baseline); the baseline scaled per byte to 1 MiB says what linear time would be, so
//     `over_linear` (CPU time, which a loaded machine disturbs less) near 1 means no quadratic
//     part is left;
//   - cli: `sluice validate` of each (the small one is the CLI's own start);
//   - server: `POST /api/v1/projects/:p/pipelines` of the 1 MiB document on a `sluice server`
//     (PGlite), with `/api/health` asked every 10 ms meanwhile, one at a time: its slowest answer
//     says whether the parse held up other requests.
// Medians in seconds over BENCH_VALIDATE_RUNS runs. Goal: validate and apply under 2 s each.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePipeline } from '@sluice/pipeline';
import { createClient } from '@sluice/protocol';
import { startSluiceServer } from '../lib/sluice-server.mjs';
import { healthWhile } from '../lib/health-while.mjs';
import { median, round, seconds } from '../lib/stats.mjs';

const RUNS = Number(process.env.BENCH_VALIDATE_RUNS ?? 5);
const TOKEN = 'slu_u_bench-validate-token-0123456789ab';
const BIN = new URL('../../apps/cli/bin/sluice.js', import.meta.url).pathname;

function pipeline(steps) {
  let text = 'version: "1.0"\nsteps:\n';
  for (let i = 0; i < steps; i++) {
    const n = String(i).padStart(5, '0');
    text += `  step_${n}:\n    image: alpine:3.19\n    commands:\n      - echo ${n}\n`;
  }
  return text;
}

const big = pipeline(14_000);
const small = pipeline(100);
const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-validate-'));
try {
  writeFileSync(join(dir, 'big.yml'), big);
  writeFileSync(join(dir, 'small.yml'), small);

  const validate = (text) => {
    const result = parsePipeline(text, { file: 'bench.yml' });
    if (!result.ok) throw new Error(result.issues[0]?.message);
    return result;
  };
  validate(small); // warm up
  // CPU time per run as well as wall time: on a loaded machine the wall time waits for the CPU.
  const [library_s, library_cpu_s] = measure(RUNS, () => validate(big));
  const [library_small_s, library_small_cpu_s] = measure(RUNS * 20, () => validate(small));
  const perByte = Buffer.byteLength(big) / Buffer.byteLength(small);

  const cli = (file) => () => {
    const result = spawnSync(process.execPath, [BIN, 'validate', join(dir, file)], {
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`sluice validate ${file}: ${result.stderr}`);
  };
  const cli_s = median(times(RUNS, cli('big.yml')));
  const cli_small_s = median(times(RUNS, cli('small.yml')));

  const server = await serverApply(big);
  console.log(
    JSON.stringify({
      bench: 'pipeline-validate',
      runs: RUNS,
      bytes: Buffer.byteLength(big),
      steps: 14_000,
      library_s: round(library_s),
      library_cpu_s: round(library_cpu_s),
      library_baseline_scaled_s: round(library_small_s * perByte),
      library_baseline_scaled_cpu_s: round(library_small_cpu_s * perByte),
      over_linear: round(library_cpu_s / (library_small_cpu_s * perByte), 2),
      cli_s: round(cli_s),
      cli_start_s: round(cli_small_s),
      apply_s: round(server.apply_s),
      health_during_apply: server.health,
      goal: { library_s: 2, cli_s: 2, apply_s: 2 },
      machine: { cpus: cpus().length, load1: round(loadavg()[0] ?? 0, 2) },
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Applies `yaml` RUNS times (new names) while asking for health; medians and the worst wait. */
async function serverApply(yaml) {
  const server = await startSluiceServer({ bin: BIN, dataDir: join(dir, 'server'), token: TOKEN });
  try {
    const { url } = server;
    const admin = createClient({ baseUrl: url, token: TOKEN });
    await admin.call('createProject', { body: { name: 'bench' } });
    const applies = [];
    const healths = [];
    for (let i = 0; i < RUNS; i++) {
      const applied = await healthWhile(url, () =>
        admin.call('createPipeline', {
          params: { project: 'bench' },
          body: { name: `p${i}`, yaml },
        }),
      );
      healths.push(...applied.healths);
      applies.push(applied.seconds);
    }
    return {
      apply_s: median(applies),
      health: {
        answered: healths.length,
        p50_s: round(median(healths)),
        max_s: round(Math.max(...healths)),
      },
    };
  } finally {
    await server.stop();
  }
}

/** Median wall time and mean CPU time (all threads: GC included) of `n` runs. */
function measure(n, fn) {
  const before = process.cpuUsage();
  const wall = median(times(n, fn));
  const cpu = process.cpuUsage(before);
  return [wall, (cpu.user + cpu.system) / 1e6 / n];
}

function times(n, fn) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    fn();
    samples.push(seconds(start));
  }
  return samples;
}
