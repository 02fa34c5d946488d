#!/usr/bin/env node
// The TypeScript build's outputs kept on the machine, so that a clean clone (how CI checks out
// each commit) builds incrementally instead of from nothing: 88 s of CPU cold, 16 s restored.
//   node scripts/lib/tsc-cache.mjs restore   before `tsc -b`, in a checkout without outputs
//   node scripts/lib/tsc-cache.mjs save      after a `tsc -b` that succeeded
// What is kept is each project's (tsconfig.json's) compiler output and its .tsbuildinfo, in
// --cache-dir (default /var/cache/sluice/tsc). `tsc -b` decides what to rebuild from the
// .tsbuildinfo, which records each source file's content hash, the compiler's version and the
// options: a changed file (and what depends on it) is checked and emitted again, a new compiler
// or option rebuilds the project, and an unchanged file keeps the output restored for it.
// Only outputs whose source file exists in this checkout are restored (or saved): a deleted
// source leaves no stale output behind (a stale test file would still run), and the bundles and
// web build that other scripts write into the same folders are never taken for tsc's.
// Restoring is skipped for a project that has outputs already (a working copy builds on its own).
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const [command] = process.argv.slice(2);
const cacheDir =
  process.argv.find((a) => a.startsWith('--cache-dir='))?.slice('--cache-dir='.length) ??
  '/var/cache/sluice/tsc';

/** Each TypeScript project of the build: its folder, sources' root and output folder. */
function projects() {
  const found = [];
  const top = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  for (const { path } of top.references ?? []) {
    const dir = join(root, path);
    const text = readFileSync(join(dir, 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '');
    const options = JSON.parse(text).compilerOptions ?? {};
    if (options.outDir === undefined) continue;
    found.push({
      dir,
      rootDir: join(dir, options.rootDir ?? '.'),
      outDir: join(dir, options.outDir),
    });
  }
  return found;
}

/** The source an output file was emitted from, if it is one of tsc's outputs. */
const OUTPUT = /^(.*?)\.(js|jsx|mjs)(\.map)?$|^(.*?)\.d\.(ts|mts)(\.map)?$/;
function hasSource(project, outFile) {
  const rel = relative(project.outDir, outFile);
  const match = OUTPUT.exec(rel);
  if (match === null) return false;
  const stem = match[1] ?? match[4];
  return ['.ts', '.tsx', '.mts'].some((ext) => existsSync(join(project.rootDir, stem + ext)));
}

/** Files under `dir` (relative to it), not following links. */
function files(dir, base = dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files(path, base, out);
    else if (entry.isFile()) out.push(relative(base, path));
  }
  return out;
}

/** Copies the outputs of `project` from `from` to `to` (both output folders) that have a source. */
function copyOutputs(project, from, to) {
  let copied = 0;
  for (const rel of files(from)) {
    const keep = rel.endsWith('.tsbuildinfo') || hasSource(project, join(project.outDir, rel));
    if (!keep) continue;
    mkdirSync(dirname(join(to, rel)), { recursive: true });
    cpSync(join(from, rel), join(to, rel), { preserveTimestamps: true });
    copied += 1;
  }
  return copied;
}

const cacheOf = (project) => join(cacheDir, relative(root, project.outDir));

if (command === 'restore') {
  let restored = 0;
  for (const project of projects()) {
    if (existsSync(join(project.outDir)) || !existsSync(cacheOf(project))) continue;
    restored += copyOutputs(project, cacheOf(project), project.outDir);
  }
  process.stdout.write(
    restored > 0
      ? `TypeScript outputs restored from ${cacheDir} (${restored} files); tsc -b rebuilds what changed\n`
      : `no TypeScript outputs restored (none kept in ${cacheDir}, or built here already)\n`,
  );
} else if (command === 'save') {
  // Not ours to write (no root, a full disk): the next clean build is a full one, nothing more.
  const next = `${cacheDir}.${process.pid}`;
  try {
    rmSync(next, { recursive: true, force: true });
    for (const project of projects()) {
      copyOutputs(project, project.outDir, join(next, relative(root, project.outDir)));
    }
    rmSync(cacheDir, { recursive: true, force: true });
    renameSync(next, cacheDir);
  } catch (error) {
    rmSync(next, { recursive: true, force: true });
    process.stdout.write(`TypeScript outputs not kept in ${cacheDir}: ${error.message}\n`);
  }
} else {
  process.stderr.write('usage: node scripts/lib/tsc-cache.mjs restore|save [--cache-dir=DIR]\n');
  process.exit(2);
}
