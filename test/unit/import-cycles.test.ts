// The cycle finder and the layer folders check of scripts/check-boundaries.mjs (the engine's
// layers, the runner's backends), on tiny trees in a temporary directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { treeWriter } from './script-rules.test-support.js';

type Graph = Map<string, string[]>;
interface ImportCycles {
  importGraph: (dir: string) => Graph;
  findCycles: (graph: Graph) => string[][];
}
interface LayeredTree {
  name: string;
  dir: string;
  entries: string[];
  layers: string[][];
  dockerValues?: string[];
}
interface FolderLayers {
  LAYERED_TREES: LayeredTree[];
  folderLayerProblems: (graph: Graph, where: { tree: LayeredTree; root: string }) => string[];
}

// From test/dist/unit/ back to the repository's scripts/lib/.
const lib = join(fileURLToPath(new URL('../../..', import.meta.url)), 'scripts/lib');
const { importGraph, findCycles } = (await import(
  pathToFileURL(join(lib, 'import-cycles.mjs')).href
)) as ImportCycles;
const { LAYERED_TREES, folderLayerProblems } = (await import(
  pathToFileURL(join(lib, 'folder-layers.mjs')).href
)) as FolderLayers;

const tree = await treeWriter('sluice-import-cycles-');

function cyclesIn(dir: string): string[][] {
  return findCycles(importGraph(dir)).map((cycle) => cycle.map((f) => f.slice(dir.length + 1)));
}

test('a cycle through a value import, an `import type` and a re-export is found, in order', async () => {
  const dir = await tree('cycle', {
    'a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'b.ts': "import type { C } from './nested/c.js';\nexport const b = 1 as C;\n",
    'nested/c.ts': "export { a } from '../a.js';\nexport type C = number;\n",
    'outside.ts': "import { a } from './a.js';\nexport const d = a;\n",
  });
  assert.deepEqual(cyclesIn(dir), [['a.ts', 'b.ts', 'nested/c.ts', 'a.ts']]);
});

test('a lazy import() closes a cycle too; package imports and comments do not', async () => {
  const dir = await tree('lazy', {
    'a.ts': "// import { x } from './b.js';\nexport const load = () => import('./b.js');\n",
    'b.ts':
      "import { load } from './a.js';\nimport { z } from 'zod';\nexport const b = [load, z];\n",
  });
  assert.deepEqual(cyclesIn(dir), [['a.ts', 'b.ts', 'a.ts']]);
});

test('a tree that imports only downwards has no cycle', async () => {
  const dir = await tree('acyclic', {
    'a.ts': "import { b } from './b.js';\nimport { c } from './c.js';\nexport const a = [b, c];\n",
    'b.ts': "import { c } from './c.js';\nexport const b = c;\n",
    'c.ts': 'export const c = 1;\n',
    'a.test.ts': "import { a } from './a.js';\nexport const t = a;\n",
  });
  assert.deepEqual(cyclesIn(dir), []);
});

test('two separate cycles are both reported, each once', async () => {
  const dir = await tree('two', {
    'a.ts': "import './b.js';\n",
    'b.ts': "import './a.js';\n",
    'c.ts': "import './d.js';\nimport './a.js';\n",
    'd.ts': "import './c.js';\n",
  });
  assert.deepEqual(cyclesIn(dir), [
    ['a.ts', 'b.ts', 'a.ts'],
    ['c.ts', 'd.ts', 'c.ts'],
  ]);
});

/** The repository's layered tree called `name`, moved to `dir` under the temporary directory. */
function layeredTree(name: string, dir: string): LayeredTree {
  const tree = LAYERED_TREES.find((candidate) => candidate.name === name);
  assert.ok(tree, `no layered tree named ${name}`);
  return { ...tree, dir };
}

test('an engine folder that imports a layer above it, or Docker values from the flow, is refused', async () => {
  const dir = await tree('engine/src', {
    'index.ts':
      "export { runStep } from './flow/step-lifecycle.js';\nexport { s } from './cleaner/sweeps.js';\n",
    'containers/container-run.ts':
      "import { runStep } from '../flow/step-lifecycle.js';\nexport const r = runStep;\n",
    'flow/step-lifecycle.ts':
      "import { DockerClient } from '@sluice/docker';\nimport { r } from '../base/step-readiness.js';\nimport { b } from '../steps/step-build.js';\nexport const runStep = [r, b, DockerClient];\n",
    'steps/step-build.ts':
      "import { parseImageReference } from '@sluice/docker';\nimport type { DockerClient } from '@sluice/docker';\nimport { r } from '../containers/container-run.js';\nimport { x } from './step-push.js';\nexport const b = [r, x, parseImageReference] as unknown as DockerClient;\n",
    'steps/step-push.ts': "import { runStep } from '../index.js';\nexport const x = runStep;\n",
    'base/step-readiness.ts':
      "import type { DockerClient } from '@sluice/docker';\nexport const r = 1 as unknown as DockerClient;\n",
    'cleaner/sweeps.ts': "import { b } from '../steps/step-build.js';\nexport const s = b;\n",
    'flow/step-lifecycle.test.ts':
      "import { s } from '../cleaner/sweeps.js';\nexport const t = s;\n",
    'loose.ts': 'export const u = 1;\n',
    'misc/helper.ts': 'export const h = 1;\n',
  });
  const problems = folderLayerProblems(importGraph(dir), {
    tree: layeredTree("the engine's layers", 'engine/src'),
    root: tree.root,
  });
  const layers = "(the engine's layers)";
  const folders = 'process/, flow/, steps/, containers/, cleaner/, base/';
  const stray = `move it into one of ${folders} or add a layer to LAYERED_TREES in scripts/lib/folder-layers.mjs ${layers}`;
  const above = `a layer above it; move what both need into a layer below them ${layers}`;
  assert.deepEqual(problems, [
    `engine/src/cleaner/sweeps.ts imports steps/step-build.ts, ${above}`,
    `engine/src/containers/container-run.ts imports flow/step-lifecycle.ts, ${above}`,
    `engine/src/flow/step-lifecycle.ts imports values from @sluice/docker, which only steps/ and containers/ may; take its types with \`import type\` and leave the calls to them ${layers}`,
    `engine/src/loose.ts: is outside the layer folders; ${stray}`,
    `engine/src/misc/helper.ts: is in misc/, which is not a layer; ${stray}`,
    `engine/src/steps/step-push.ts imports index.ts, an entry above every layer, which no layer may import ${layers}`,
  ]);
});

test("the runner's backends import nothing of each other; their entry and the rest of src may", async () => {
  const src = await tree('runner/src', {
    'runtime-backend.ts':
      "import type { C } from './backends/kubernetes/cache-records.js';\nexport type R = C;\n",
    'backends/create-backend.ts':
      "export const load = [() => import('./local/local-backend.js'), () => import('./kubernetes/kubernetes-backend.js')];\n",
    'backends/local/local-backend.ts':
      "import type { R } from '../../runtime-backend.js';\nimport { podFailure } from '../kubernetes/pod-failures.js';\nexport const l = podFailure as unknown as R;\n",
    'backends/kubernetes/kubernetes-backend.ts':
      "import { podFailure } from './pod-failures.js';\nexport const k = podFailure;\n",
    'backends/kubernetes/pod-failures.ts': 'export const podFailure = 1;\n',
    'backends/kubernetes/cache-records.ts': 'export type C = number;\n',
  });
  const backends = layeredTree("the runner's backends", 'runner/src/backends');
  assert.deepEqual(folderLayerProblems(importGraph(src), { tree: backends, root: tree.root }), [
    "runner/src/backends/local/local-backend.ts imports kubernetes/pod-failures.ts, kubernetes/, a folder beside its own; move what both need into a layer below them (the runner's backends)",
  ]);
  const gone = { ...backends, dir: 'runner/src/gone' };
  assert.deepEqual(folderLayerProblems(importGraph(src), { tree: gone, root: tree.root }), [
    "runner/src/gone: holds no source file; correct its entry in LAYERED_TREES in scripts/lib/folder-layers.mjs (the runner's backends)",
  ]);
});
