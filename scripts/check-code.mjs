#!/usr/bin/env node
// The test command's format and lint check: `npm run format:check` and `npm run lint`, with
// their results cached on the machine (--cache-dir, default /var/cache/sluice/lint) so that a
// second run of the same code, or of code that changed in a few files, checks only those files.
//   Prettier's result for a file depends on its text and the configuration only: it is cached
//   by content.
//   ESLint's typed rules also read the types a file imports, so a file's cached result is only
//   reused while every type it can see is the same: each TypeScript project gets a key
//   (scripts/lib/types-key.mjs: the declarations it and the projects it references emitted, the
//   lockfile, the configuration files), which eslint.config.js puts in the settings of that
//   project's files (SLUICE_LINT_TYPE_KEYS), and ESLint relints a file whose configuration
//   changed. Run it after `tsc -b` (the test command does): declarations older than the sources
//   would hide a change.
// Both tools key their caches by absolute paths (ESLint's configuration holds one too), and CI
// checks each commit out somewhere new: as root, the checks run in a mount namespace of their
// own where the repository is bind-mounted at one fixed path (`<cache-dir>/repository`), so every
// clone looks the same to them and concurrent runs do not see each other's. Each run works on a
// copy of the caches and keeps it when it ends. Without root they run uncached.
// Then the module boundaries and the commit messages (scripts/check-commits.mjs).
// Exits non-zero when any of the four checks fails, after running all of them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { projectTypeKeys } from './lib/types-key.mjs';

const here = new URL('..', import.meta.url).pathname;
const option = (name) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const cacheDir = option('cache-dir') ?? '/var/cache/sluice/lint';
/** Where the repository is mounted inside the namespace. */
const fixedRoot = join(cacheDir, 'repository');
/** The ESLint cache; one file for every project, as each file's entry holds its project's key. */
const ESLINT_CACHE = 'eslint-cache.json';

/** unshare's arguments for a private mount namespace running `script` with the bind mount. */
function inNamespace(script, ...args) {
  const bind = `mount --bind "$1" "$2" && cd "$2" && ${script}`;
  return ['--mount', '--propagation', 'private', 'sh', '-c', bind, 'sh', here, fixedRoot, ...args];
}

/**
 * Runs this script again inside a mount namespace with the repository at `fixedRoot`; undefined
 * when the machine cannot (no unshare, no privilege to mount): tried first on its own, so that a
 * check's failure is never taken for the mount's.
 */
function runAtFixedRoot() {
  try {
    mkdirSync(fixedRoot, { recursive: true });
  } catch {
    return undefined;
  }
  const probe = spawnSync('unshare', inNamespace('true'), { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) return undefined;
  const script = 'exec "$3" scripts/check-code.mjs "$4" --inside';
  const { status } = spawnSync(
    'unshare',
    inNamespace(script, process.execPath, `--cache-dir=${cacheDir}`),
    { stdio: 'inherit' },
  );
  return status ?? 1;
}

/** Removes the caches of earlier versions of this script: one per key of the whole repository. */
function removeOldEslintCaches() {
  for (const name of readdirSync(cacheDir)) {
    if (/^eslint-[0-9a-f]{16}$/.test(name)) rmSync(join(cacheDir, name), { force: true });
  }
}

function run(label, command, args, env = process.env) {
  const started = Date.now();
  const { status, signal } = spawnSync(command, args, { cwd: here, stdio: 'inherit', env });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const ok = status === 0;
  process.stdout.write(
    `${label}: ${ok ? 'ok' : `failed (${signal ?? `exit ${status}`})`} in ${seconds} s\n`,
  );
  return ok;
}

/** Runs a tool with `--cache-location` on a copy of the kept cache `file`, then keeps the copy. */
function runCached(label, file, command, args, env) {
  const copy = `${file}.${process.pid}`;
  if (existsSync(file)) copyFileSync(file, copy);
  try {
    return run(label, command, [...args, '--cache-location', copy], env);
  } finally {
    if (existsSync(copy)) renameSync(copy, file);
  }
}

const cached = process.argv.includes('--inside');
if (!cached && process.getuid?.() === 0) {
  const status = runAtFixedRoot();
  if (status !== undefined) process.exit(status);
  process.stderr.write('could not bind-mount the repository (unshare, mount): checks uncached\n');
}
const { keys, declarations } = projectTypeKeys(here);
if (declarations === 0) {
  process.stderr.write('no declaration files: run `npm run build` first\n');
  process.exit(70);
}
if (cached) removeOldEslintCaches();
const bin = (name) => join(here, 'node_modules/.bin', name);
const CACHE_FLAGS = ['--cache', '--cache-strategy', 'content'];
const tool = (label, file, command, args, env) =>
  cached
    ? runCached(`${label} (cached)`, join(cacheDir, file), command, [...args, ...CACHE_FLAGS], env)
    : run(label, command, args, env);
const results = [
  tool('prettier --check', 'prettier-cache.json', bin('prettier'), ['--check', '.']),
  tool('eslint', ESLINT_CACHE, bin('eslint'), ['.'], {
    ...process.env,
    SLUICE_LINT_TYPE_KEYS: JSON.stringify(keys),
  }),
  run('module boundaries', process.execPath, [join(here, 'scripts/check-boundaries.mjs')]),
  run('commit messages', process.execPath, [join(here, 'scripts/check-commits.mjs')]),
];
process.exitCode = results.every(Boolean) ? 0 : 1;
