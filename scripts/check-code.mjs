#!/usr/bin/env node
// The test command's format and lint check: `npm run format:check` and `npm run lint`, with
// their results cached on the machine (--cache-dir, default /var/cache/sluice/lint) so that a
// second run of the same code, or of code that changed in a few files, checks only those files.
//   Prettier's result for a file depends on its text and the configuration only: it is cached
//   by content.
//   ESLint's typed rules also read the types a file imports, so its cache is only reused while
//   every type the files can see is the same: the cache is named by a hash of every declaration
//   file the build emitted (each package's dist/**/*.d.ts and the web UI's .tsc/**/*.d.ts), the
//   lockfile (the rules and @types) and the configuration files. Run it after `tsc -b` (the
//   test command does): declarations older than the sources would hide a change.
// Both tools key their caches by absolute paths (ESLint's configuration holds one too), and CI
// checks each commit out somewhere new: as root, the checks run in a mount namespace of their
// own where the repository is bind-mounted at one fixed path (`<cache-dir>/repository`), so every
// clone looks the same to them and concurrent runs do not see each other's. Each run works on a
// copy of the caches and keeps it when it ends. Without root they run uncached.
// Exits non-zero when any of the three checks fails, after running all of them.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { typesKey } from './lib/types-key.mjs';

const here = new URL('..', import.meta.url).pathname;
const option = (name) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const cacheDir = option('cache-dir') ?? '/var/cache/sluice/lint';
/** Where the repository is mounted inside the namespace. */
const fixedRoot = join(cacheDir, 'repository');
/** ESLint caches kept besides the one in use: a branch switched back to finds its own. */
const KEEP_ESLINT_CACHES = 3;

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
  const { status, signal } = spawnSync(command, args, { cwd: here, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const ok = status === 0;
  process.stdout.write(
    `${label}: ${ok ? 'ok' : `failed (${signal ?? `exit ${status}`})`} in ${seconds} s\n`,
  );
  return ok;
}

/** Runs a tool with `--cache-location` on a copy of the kept cache `file`, then keeps the copy. */
function runCached(label, file, command, args) {
  const copy = `${file}.${process.pid}`;
  if (existsSync(file)) copyFileSync(file, copy);
  try {
    return run(label, command, [...args, '--cache-location', copy]);
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
const { key, declarations } = typesKey(here);
if (declarations === 0) {
  process.stderr.write('no declaration files: run `npm run build` first\n');
  process.exit(70);
}
const eslintCache = `eslint-${key}`;
if (cached) pruneEslintCaches(eslintCache);
const bin = (name) => join(here, 'node_modules/.bin', name);
const CACHE_FLAGS = ['--cache', '--cache-strategy', 'content'];
const tool = (label, file, command, args) =>
  cached
    ? runCached(`${label} (cached)`, join(cacheDir, file), command, [...args, ...CACHE_FLAGS])
    : run(label, command, args);
const results = [
  tool('prettier --check', 'prettier-cache.json', bin('prettier'), ['--check', '.']),
  tool('eslint', eslintCache, bin('eslint'), ['.']),
  run('module boundaries', process.execPath, [join(here, 'scripts/check-boundaries.mjs')]),
];
process.exitCode = results.every(Boolean) ? 0 : 1;
