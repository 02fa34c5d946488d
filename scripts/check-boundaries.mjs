#!/usr/bin/env node
// Asserts the who-imports-whom table of ARCHITECTURE.md: every `@sluice/*` import in a
// workspace's sources is declared in its package.json and allowed below, and the graph has no
// cycles. Pure packages (no I/O) may import only other pure packages. Inside every workspace no
// file imports itself back through others (scripts/lib/import-cycles.mjs: `import type` and
// `import()` included), and the engine's files keep to the layers of ARCHITECTURE.md
// (scripts/lib/engine-layers.mjs).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findCycles, importGraph } from './lib/import-cycles.mjs';
import { engineLayerProblems, engineLayersFrom } from './lib/engine-layers.mjs';

const ALLOWED = {
  '@sluice/errors': [],
  '@sluice/process': [],
  '@sluice/labels': [],
  '@sluice/config': ['@sluice/errors'],
  '@sluice/pipeline': ['@sluice/errors'],
  '@sluice/pki': ['@sluice/errors'],
  '@sluice/triggers': ['@sluice/errors', '@sluice/pipeline'],
  '@sluice/runtime-spec': ['@sluice/errors', '@sluice/labels'],
  '@sluice/protocol': ['@sluice/errors'],
  '@sluice/log': ['@sluice/errors'],
  '@sluice/docker': ['@sluice/errors', '@sluice/config'],
  '@sluice/db': ['@sluice/errors', '@sluice/process'],
  '@sluice/testkit': ['@sluice/errors', '@sluice/process'],
  '@sluice/kube': ['@sluice/errors', '@sluice/config'],
  '@sluice/engine': [
    '@sluice/errors',
    '@sluice/process',
    '@sluice/labels',
    '@sluice/pipeline',
    '@sluice/docker',
    '@sluice/log',
    '@sluice/protocol',
  ],
  '@sluice/server': [
    '@sluice/errors',
    '@sluice/process',
    '@sluice/log',
    '@sluice/pipeline',
    '@sluice/protocol',
    '@sluice/db',
    '@sluice/pki',
    '@sluice/runtime-spec',
    '@sluice/triggers',
    '@sluice/config',
  ],
  '@sluice/runner': [
    '@sluice/errors',
    '@sluice/process',
    '@sluice/labels',
    '@sluice/docker',
    '@sluice/kube',
    '@sluice/log',
    '@sluice/protocol',
    '@sluice/config',
  ],
  '@sluice/provisioner': [
    '@sluice/errors',
    '@sluice/process',
    '@sluice/config',
    '@sluice/kube',
    '@sluice/log',
    '@sluice/runtime-spec',
  ],
  // The web UI talks to the server only through the public API's typed client.
  '@sluice/web': ['@sluice/errors', '@sluice/protocol'],
  // The CLI is the single `sluice` binary: the one place allowed to compose other apps.
  '@sluice/cli': [
    '@sluice/errors',
    '@sluice/process',
    '@sluice/pipeline',
    '@sluice/docker',
    '@sluice/log',
    '@sluice/engine',
    '@sluice/server',
    '@sluice/runner',
    '@sluice/runtime-spec',
    '@sluice/protocol',
    // runner init|delete|upgrade install the runtime's objects through the one Kubernetes client.
    '@sluice/kube',
    '@sluice/config',
    // sluice provisioner runs the volume provisioner.
    '@sluice/provisioner',
  ],
};
// Tests may also use the internal CA to make real certificates (the docker package's TLS tests)
// and render real build objects (the runner's Kubernetes tests).
const TEST_ONLY = ['@sluice/testkit', '@sluice/pki', '@sluice/runtime-spec'];
const PURE = new Set([
  '@sluice/errors',
  '@sluice/labels',
  '@sluice/config',
  '@sluice/pipeline',
  '@sluice/protocol',
  '@sluice/runtime-spec',
]);

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
for (const dir of workspaces) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const allowed = ALLOWED[pkg.name];
  if (allowed === undefined) {
    problems.push(`${pkg.name} is not in the boundaries table of scripts/check-boundaries.mjs`);
    continue;
  }
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

const engineLayers = engineLayersFrom(readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8'));
if (engineLayers === undefined)
  problems.push(`ARCHITECTURE.md has no table under "### The engine's layers"`);
for (const sources of [...workspaces.map((dir) => join(dir, 'src')), join(root, 'test')]) {
  const graph = importGraph(sources);
  for (const cycle of findCycles(graph))
    problems.push(`import cycle: ${cycle.map((file) => file.slice(root.length)).join(' -> ')}`);
  if (engineLayers && sources === join(root, 'apps/engine/src'))
    problems.push(...engineLayerProblems(graph, { sources, root, ...engineLayers }));
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`${problems.length} boundary problem(s)`);
  process.exit(1);
}
console.log(`boundaries ok: ${graph.size} workspaces, no import cycle, engine layers kept`);
