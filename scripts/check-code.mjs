#!/usr/bin/env node
// The test command's format and lint check: `npm run format:check` and `npm run lint`, with
// their results cached on the machine (--cache-dir, default /var/cache/sluice/lint) so that a
// second run of the same code, or of code that changed in a few files, checks only those files.
//   Prettier's result for a file depends on its text and the configuration only: it is cached
//   by content.
//   ESLint's typed rules also read the types a file imports, so its cache is only reused while
//   every type the files can see is the same: the cache's directory is named by a hash of every
//   declaration file the build emitted (each package's dist/**/*.d.ts and the web UI's
//   .tsc/**/*.d.ts), the lockfile (the rules and @types) and the configuration files. Run it
//   after `tsc -b` (the test command does): declarations older than the sources would hide a
//   change.
// Exits non-zero when any of the three checks fails, after running all of them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { typesKey } from './lib/types-key.mjs';

const root = new URL('..', import.meta.url).pathname;
const cacheDir =
  process.argv.find((a) => a.startsWith('--cache-dir='))?.slice('--cache-dir='.length) ??
  '/var/cache/sluice/lint';
/** ESLint caches kept besides the one in use: a branch switched back to finds its own. */
const KEEP_ESLINT_CACHES = 3;

/** Removes all but the newest `keep` ESLint caches besides `current`. */
function pruneEslintCaches(current) {
  const others = readdirSync(cacheDir)
    .filter((name) => name.startsWith('eslint-') && name !== current)
    .map((name) => ({ name, mtime: statSync(join(cacheDir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { name } of others.slice(KEEP_ESLINT_CACHES)) {
    rmSync(join(cacheDir, name), { recursive: true, force: true });
  }
}

function run(label, command, args) {
  const started = Date.now();
  const { status, signal } = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const ok = status === 0;
  process.stdout.write(
    `${label}: ${ok ? 'ok' : `failed (${signal ?? `exit ${status}`})`} in ${seconds} s\n`,
  );
  return ok;
}

mkdirSync(cacheDir, { recursive: true });
const { key, declarations } = typesKey(root);
const eslintCache = `eslint-${key}`;
pruneEslintCaches(eslintCache);
if (declarations === 0) {
  process.stderr.write('no declaration files: run `npm run build` first\n');
  process.exit(70);
}
const bin = (name) => join(root, 'node_modules/.bin', name);
const results = [
  run('prettier --check', bin('prettier'), [
    '--check',
    '.',
    '--cache',
    '--cache-strategy',
    'content',
    '--cache-location',
    join(cacheDir, 'prettier-cache.json'),
  ]),
  run(`eslint (cache ${eslintCache})`, bin('eslint'), [
    '.',
    '--cache',
    '--cache-strategy',
    'content',
    '--cache-location',
    `${join(cacheDir, eslintCache)}/`,
  ]),
  run('module boundaries', process.execPath, [join(root, 'scripts/check-boundaries.mjs')]),
];
process.exitCode = results.every(Boolean) ? 0 : 1;
