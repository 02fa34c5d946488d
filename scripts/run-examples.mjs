#!/usr/bin/env node
// Runs the example pipelines listed in examples/corpus.json with the built `sluice` CLI on the
// local Docker engine, printing their logs, one after another. Exits non-zero if any example
// does not end as the manifest expects (success, or failure for the failure-path examples).
//   node scripts/run-examples.mjs [NAME...]   only the examples whose path contains a NAME
// Examples that need something this machine may not have (a cluster) are listed with what they
// need and not run. The manifest's placeholders: {repo} the repository root, {head} its HEAD
// commit, {git:DIR} a fresh git repository (branch main) holding DIR's files, {registry} the
// registry in SLUICE_EXAMPLES_REGISTRY=HOST:PORT (examples pushing there are skipped without it;
// Debian's docker-registry listens on 127.0.0.1:5000).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const sluice = `${root}/apps/cli/bin/sluice.js`;
const { examples } = JSON.parse(readFileSync(`${root}/examples/corpus.json`, 'utf8'));
const names = process.argv.slice(2);
const selected = examples.filter(
  (e) => names.length === 0 || names.some((n) => e.file.includes(n)),
);
const scratch = mkdtempSync(join(tmpdir(), 'sluice-examples-'));
const fixtures = new Map();
const registry = process.env.SLUICE_EXAMPLES_REGISTRY ?? '';

function git(args, cwd) {
  const out = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${out.stderr}`);
  return out.stdout.trim();
}

function gitFixture(source) {
  if (fixtures.has(source)) return fixtures.get(source);
  const target = join(scratch, `${basename(dirname(source))}-${basename(source)}`);
  cpSync(join(root, source), target, { recursive: true });
  git(['init', '-q', '-b', 'main'], target);
  git(['add', '-A'], target);
  git(
    [
      '-c',
      'user.name=Sluice',
      '-c',
      'user.email=sluice@localhost',
      'commit',
      '-q',
      '-m',
      'example',
    ],
    target,
  );
  fixtures.set(source, `file://${target}`);
  return fixtures.get(source);
}

function expand(args) {
  return args.map((arg) =>
    arg
      .replaceAll('{repo}', root)
      .replaceAll('{registry}', registry)
      .replaceAll('{head}', () => git(['rev-parse', 'HEAD'], root))
      .replace(/\{git:([^}]+)\}/g, (_m, source) => gitFixture(source)),
  );
}

let failed = 0;
let ran = 0;
try {
  for (const example of selected) {
    if (!example.runs) {
      console.log(`\n- ${example.file}: not run, needs ${example.needs.join(', ')}`);
      continue;
    }
    if (registry === '' && example.args.some((arg) => arg.includes('{registry}'))) {
      console.log(`\n- ${example.file}: not run, set SLUICE_EXAMPLES_REGISTRY=HOST:PORT to run it`);
      continue;
    }
    const args = expand(example.args);
    console.log(`\n\u001b[1m$ sluice run ${example.file} ${args.join(' ')}\u001b[0m`);
    const result = spawnSync(process.execPath, [sluice, 'run', example.file, ...args], {
      cwd: root,
      stdio: 'inherit',
    });
    ran += 1;
    const expected = example.expect === 'failure' ? 1 : 0;
    if (result.status !== expected) {
      failed += 1;
      console.error(
        `example ${example.file} exited with ${result.status ?? result.signal}, expected ${expected}`,
      );
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`\n${ran - failed} of ${ran} examples ended as expected`);
process.exitCode = failed === 0 ? 0 : 1;
