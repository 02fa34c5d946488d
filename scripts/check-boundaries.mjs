#!/usr/bin/env node
// Asserts the package rules of scripts/lib/package-rules.mjs: every `@sluice/*` import in a
// workspace's sources is declared in its package.json and allowed there, and the graph has no
// cycles. Pure packages (no I/O) may import only other pure packages. Inside every workspace no
// file imports itself back through others (scripts/lib/import-cycles.mjs: `import type` and
// `import()` included), and the layered trees (the engine's folders, the runner's backends) keep
// to their layers (scripts/lib/folder-layers.mjs). Only config modules
// and main.ts files read process.env, and no app imports another app but the CLI importing `main`
// entries (scripts/lib/entry-rules.mjs). The server's service folders import each other in one
// direction (scripts/lib/folder-cycles.mjs), and each table of the build aggregate has one writer
// (scripts/lib/table-writers.mjs, with the table below). ARCHITECTURE.md's list "Who imports
// whom" is rendered from the rules: `--write` rewrites it, and the check fails while it differs.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findCycles, importGraph } from './lib/import-cycles.mjs';
import { folderLayerProblems, LAYERED_TREES } from './lib/folder-layers.mjs';
import { appImportProblems, processEnvProblems } from './lib/entry-rules.mjs';
import { folderCycleProblems } from './lib/folder-cycles.mjs';
import { tableWriterProblems } from './lib/table-writers.mjs';
import { ALLOWED, PURE, TEST_ONLY, renderRules } from './lib/package-rules.mjs';

// The build aggregate's tables and their one writer each, as paths under apps/server/src: the
// store composes the others (apps/server/src/services/builds/build-store.ts). Engine tokens are
// the aggregate's rows of `api_tokens`; identity's service writes its user and agent tokens.
const AGGREGATE_WRITERS = {
  builds: ['services/builds/build-store.ts'],
  build_steps: ['services/builds/build-steps.ts'],
  build_control: ['services/builds/build-control.ts'],
  tasks: ['services/builds/task-rows.ts'],
  api_tokens: ['services/builds/engine-tokens.ts', 'services/identity/identity-service.ts'],
};

const root = new URL('..', import.meta.url).pathname;
const problems = [];
const workspaces = ['packages', 'apps'].flatMap((group) =>
  readdirSync(join(root, group)).map((name) => join(root, group, name)),
);

function sources(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const graph = new Map();
const apps = {};
for (const dir of workspaces) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const allowed = ALLOWED[pkg.name];
  if (allowed === undefined) {
    problems.push(`${pkg.name} is not in the boundaries table of scripts/check-boundaries.mjs`);
    continue;
  }
  if (dir.startsWith(join(root, 'apps'))) apps[pkg.name] = dir;
  const declared = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.devDependencies ?? {}),
  ]);
  const edges = new Set();
  for (const file of sources(join(dir, 'src'))) {
    const isTest = /\.test(-support)?\.ts$/.test(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from '(@sluice\/[\w-]+)/g)) {
      const target = match[1];
      if (target === pkg.name) continue;
      const where = file.slice(root.length);
      if (!declared.has(target))
        problems.push(
          `${where}: imports ${target}, which ${pkg.name}'s package.json does not declare`,
        );
      const ok = allowed.includes(target) || (isTest && TEST_ONLY.includes(target));
      if (!ok) problems.push(`${where}: ${pkg.name} may not import ${target}`);
      if (PURE.has(pkg.name) && !PURE.has(target))
        problems.push(`${where}: pure ${pkg.name} imports ${target}, which does I/O`);
      if (!isTest) edges.add(target);
    }
  }
  graph.set(pkg.name, edges);
}

function findCycle(node, stack = []) {
  if (stack.includes(node)) return [...stack.slice(stack.indexOf(node)), node];
  for (const next of graph.get(node) ?? []) {
    const cycle = findCycle(next, [...stack, node]);
    if (cycle) return cycle;
  }
  return undefined;
}
for (const node of graph.keys()) {
  const cycle = findCycle(node);
  if (cycle) {
    problems.push(`import cycle: ${cycle.join(' -> ')}`);
    break;
  }
}

problems.push(...processEnvProblems(workspaces, root), ...appImportProblems(apps, root));

for (const sources of [...workspaces.map((dir) => join(dir, 'src')), join(root, 'test')]) {
  const graph = importGraph(sources);
  for (const cycle of findCycles(graph))
    problems.push(`import cycle: ${cycle.map((file) => file.slice(root.length)).join(' -> ')}`);
  for (const tree of LAYERED_TREES)
    if (`${join(root, tree.dir)}/`.startsWith(`${sources}/`))
      problems.push(...folderLayerProblems(graph, { tree, root }));
  if (sources === join(root, 'apps/server/src')) {
    const dir = join(sources, 'services');
    problems.push(...folderCycleProblems(graph, { dir, root }));
    problems.push(...tableWriterProblems(sources, AGGREGATE_WRITERS, { root }));
  }
}

// ARCHITECTURE.md's list of the rules, between its markers, is what renderRules makes of them.
const START = '<!-- boundaries:start (node scripts/check-boundaries.mjs --write) -->';
const END = '<!-- boundaries:end -->';
const architecturePath = join(root, 'ARCHITECTURE.md');
const architecture = readFileSync(architecturePath, 'utf8');
const [before, rest] = architecture.split(START);
const [current, after] = rest?.split(END) ?? [];
const rendered = `\n\n${renderRules(new Set(Object.keys(apps)))}\n\n`; // as Prettier spaces it
if (after === undefined) problems.push(`ARCHITECTURE.md has no "${START}" … "${END}" markers`);
else if (current !== rendered) {
  if (process.argv.includes('--write'))
    writeFileSync(architecturePath, `${before}${START}${rendered}${END}${after}`);
  else
    problems.push(
      'ARCHITECTURE.md\'s "Who imports whom" differs from scripts/lib/package-rules.mjs: ' +
        'run node scripts/check-boundaries.mjs --write',
    );
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`${problems.length} boundary problem(s)`);
  process.exit(1);
}
console.log(
  `boundaries ok: ${graph.size} workspaces, no import cycle, layer folders kept, ` +
    'process.env and app entries in place, server service folders acyclic, ' +
    'one writer per aggregate table',
);
