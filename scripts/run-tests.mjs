#!/usr/bin/env node
// Runs the test tiers on the compiled output (tsc -b first), one tier after another, and closes
// with a plain "N passed, N failed" line that CI reads.
//   unit: **/dist/**/*.test.js without .int./.e2e./.kube.  int: **/dist/**/*.int.test.js
//   e2e:  test/dist/e2e/*.e2e.test.js                kube: **/dist/**/*.kube.test.js (a real cluster)
//   The unit tier also runs the web UI's component tests (apps/web/src/**/*.test.tsx, vitest).
// Filter with SLUICE_TEST_FILTER=<substring of the path>.
//   --background-setup=CMD  runs the shell command CMD (niced, its lines prefixed) beside the
//   unit and int tiers, which do not need it, and waits for it before the first later tier: the
//   test command builds the Kubernetes test cluster this way on a fresh machine (~14 minutes).
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { runWebTests, webTestFiles } from './lib/web-tests.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const setupFlag = '--background-setup=';
const setupCommand = args.find((a) => a.startsWith(setupFlag))?.slice(setupFlag.length);
const tiers = args.filter((a) => !a.startsWith('--'));
if (tiers.length === 0) tiers.push('unit', 'int', 'e2e');
const BESIDE_SETUP = new Set(['unit', 'int']);

/** CMD started now at a lower CPU priority; the promise settles with its exit code when it ends. */
function startBackgroundSetup(command) {
  const prefix = '[background set-up] ';
  console.log(`${prefix}started: ${command}`);
  const child = spawn('nice', ['-n', '10', 'bash', '-c', command], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => console.log(prefix + line));
  }
  return new Promise((resolve) => {
    child.once('error', (error) => resolve(`could not start (${error.message})`));
    child.once('close', (code, signal) => resolve(signal ? `killed by ${signal}` : code));
  });
}
let setup = setupCommand === undefined ? undefined : startBackgroundSetup(setupCommand);

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
  const filter = process.env.SLUICE_TEST_FILTER ?? '';
  return all
    .filter((p) => p.includes('/dist/') && p.endsWith('.test.js'))
    .filter((p) => {
      if (tier === 'int') return p.endsWith('.int.test.js');
      if (tier === 'e2e') return p.endsWith('.e2e.test.js');
      if (tier === 'kube') return p.endsWith('.kube.test.js');
      return !/\.(int|e2e|kube)\.test\.js$/.test(p);
    })
    .filter((p) => p.includes(filter))
    .sort();
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const tier of tiers) {
  if (setup !== undefined && !BESIDE_SETUP.has(tier)) {
    console.log(`\n== waiting for the background set-up before the ${tier} tier ==`);
    const status = await setup;
    // A failed set-up is reported by the tests that need it, with its step and log.
    console.log(`[background set-up] finished: ${status === 0 ? 'ok' : `failed (${status})`}`);
    setup = undefined;
  }
  const files = filesFor(tier);
  // The web UI's component tests (vitest, jsdom) belong to the unit tier.
  const webFiles = tier === 'unit' ? webTestFiles(process.env.SLUICE_TEST_FILTER ?? '') : [];
  console.log(`\n== ${tier}: ${files.length + webFiles.length} test files ==`);
  const counts = { passed: 0, failed: 0, skipped: 0 };
  if (webFiles.length > 0) {
    const web = await runWebTests(webFiles);
    console.log(`web components: ${web.passed} passed, ${web.failed} failed`);
    counts.passed += web.passed;
    counts.failed += web.failed;
    counts.skipped += web.skipped;
  }
  if (files.length === 0) {
    passed += counts.passed;
    failed += counts.failed;
    skipped += counts.skipped;
    continue;
  }
  // A kube file may build the Kubernetes binaries on a fresh machine (about 12 minutes).
  const timeout = (tier === 'kube' ? 40 : 15) * 60_000;
  const stream = run({ files, concurrency: tier === 'unit' ? 2 : 1, timeout });
  stream.on('test:pass', (e) => {
    if (e.details.type === 'suite') return;
    if (e.skip || e.todo) counts.skipped++;
    else counts.passed++;
  });
  stream.on('test:fail', (e) => {
    if (e.details.type === 'suite' && e.details.error?.failureType !== 'hookFailed') return;
    counts.failed++;
  });
  stream.compose(spec).pipe(process.stdout);
  await new Promise((resolve) => stream.once('end', resolve));
  console.log(
    `${tier}: ${counts.passed} passed, ${counts.failed} failed (${files.length + webFiles.length} files)`,
  );
  passed += counts.passed;
  failed += counts.failed;
  skipped += counts.skipped;
}
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 ? 1 : 0;
