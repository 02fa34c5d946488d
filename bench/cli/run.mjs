#!/usr/bin/env node
// cli: how long a person waits for the `sluice` command. A `sluice server` (PGlite, its own data
// directory) holds one pipeline with BENCH_CLI_BUILDS builds; then, one after another, each run
// BENCH_CLI_RUNS times: `node -e 0` (the floor: Node's own start), `sluice --version` (the CLI's
// start) and `sluice get builds` (start, one API call, a table of 20 builds). Medians in seconds.
// Goal: `get builds` at most 0.3 s.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@sluice/protocol';
import { startSluiceServer } from '../lib/sluice-server.mjs';
import { median, round } from '../lib/stats.mjs';

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 20);
const BUILDS = Number(process.env.BENCH_CLI_BUILDS ?? 50);
const TOKEN = 'slu_u_bench-cli-token-0123456789abcdef';
const BIN = new URL('../../apps/cli/bin/sluice.js', import.meta.url).pathname;
/** The CLI timed: the installed command, or another entry point to compare (BENCH_CLI_ENTRY). */
const SLUICE = process.env.BENCH_CLI_ENTRY ?? BIN;

const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-cli-'));
const server = await startSluiceServer({ bin: BIN, dataDir: dir, token: TOKEN });
try {
  const { url } = server;
  const admin = createClient({ baseUrl: url, token: TOKEN });
  await admin.call('createProject', { body: { name: 'bench' } });
  const yaml = 'version: "1.0"\nsteps:\n  a:\n    image: alpine\n    commands: ["true"]\n';
  const pipeline = await admin.call('createPipeline', {
    params: { project: 'bench' },
    body: { name: 'cli', yaml },
  });
  // No runtime environment: the builds stay pending, which is all listing needs.
  for (let i = 0; i < BUILDS; i++)
    await admin.call('createBuild', {
      params: { pipelineId: pipeline.id },
      body: { branch: 'main' },
    });

  const env = { ...process.env, SLUICE_SERVER: url, SLUICE_TOKEN: TOKEN, NO_COLOR: '1' };
  const time = (args) => {
    const samples = [];
    for (let i = 0; i < RUNS; i++) {
      const start = process.hrtime.bigint();
      const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (result.status !== 0)
        throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
      samples.push(seconds);
    }
    return median(samples);
  };
  const listed = spawnSync(process.execPath, [SLUICE, 'get', 'builds'], { env, encoding: 'utf8' });
  if (listed.stdout.trim().split('\n').length !== 21)
    throw new Error(`get builds printed no table of 20 builds:\n${listed.stdout}${listed.stderr}`);
  const node_s = time(['-e', '0']);
  const version_s = time([SLUICE, '--version']);
  const get_builds_s = time([SLUICE, 'get', 'builds']);
  console.log(
    JSON.stringify({
      bench: 'cli',
      runs: RUNS,
      node_s: round(node_s),
      version_s: round(version_s),
      get_builds_s: round(get_builds_s),
      over_node: {
        version_s: round(version_s - node_s),
        get_builds_s: round(get_builds_s - node_s),
      },
      goal: { get_builds_s: 0.3 },
      machine: { cpus: cpus().length, load1: round(loadavg()[0] ?? 0, 2) },
    }),
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
