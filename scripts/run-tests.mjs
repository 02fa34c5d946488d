#!/usr/bin/env node
// Runs the test tiers on the compiled output (tsc -b first), one tier after another, and closes
// with a plain "N passed, N failed" line that CI reads.
//   unit: **/dist/**/*.test.js without .int./.e2e./.kube.  int: **/dist/**/*.int.test.js
//   e2e:  test/dist/e2e/*.e2e.test.js                kube: **/dist/**/*.kube.test.js (a real cluster)
// Filter with SLUICE_TEST_FILTER=<substring of the path>.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const root = new URL('..', import.meta.url).pathname;
const tiers = process.argv.slice(2);
if (tiers.length === 0) tiers.push('unit', 'int', 'e2e');

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
  const files = filesFor(tier);
  console.log(`\n== ${tier}: ${files.length} test files ==`);
  if (files.length === 0) continue;
  const counts = { passed: 0, failed: 0, skipped: 0 };
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
    `${tier}: ${counts.passed} passed, ${counts.failed} failed (${files.map((f) => relative(root, f)).length} files)`,
  );
  passed += counts.passed;
  failed += counts.failed;
  skipped += counts.skipped;
}
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 ? 1 : 0;
