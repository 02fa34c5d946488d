// The cycle finder and the engine's layer check of scripts/check-boundaries.mjs, on tiny trees
// in a temporary directory.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeTempDir } from '@sluice/testkit';

type Graph = Map<string, string[]>;
interface ImportCycles {
  importGraph: (dir: string) => Graph;
  findCycles: (graph: Graph) => string[][];
}
interface Layers {
  layers: string[];
  files: Record<string, string>;
}
interface EngineLayers {
  engineLayersFrom: (architecture: string) => Layers | undefined;
  engineLayerProblems: (
    graph: Graph,
    where: { sources: string; root: string } & Layers,
  ) => string[];
}

// From test/dist/unit/ back to the repository's scripts/lib/.
const lib = join(fileURLToPath(new URL('../../..', import.meta.url)), 'scripts/lib');
const { importGraph, findCycles } = (await import(
  pathToFileURL(join(lib, 'import-cycles.mjs')).href
)) as ImportCycles;
const { engineLayersFrom, engineLayerProblems } = (await import(
  pathToFileURL(join(lib, 'engine-layers.mjs')).href
)) as EngineLayers;

const temp = await makeTempDir('sluice-import-cycles-');
after(() => temp.cleanup());

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(temp.path, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

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

const ARCHITECTURE = `# Architecture

### The engine's layers

| layer                | files                   | job   |
| -------------------- | ----------------------- | ----- |
| flow                 | \`step-lifecycle.ts\`    | steps |
| step kinds           | \`step-build.ts\`        | kinds |
| container primitives | \`container-run.ts\`     | runs  |
| base                 | \`step-readiness.ts\`, \`cleaner/\` | rules |

## A later section

| layer | files               |
| ----- | ------------------- |
| other | \`unlisted.ts\`      |
`;

test("the engine's layers are read from ARCHITECTURE.md's table, top first", () => {
  assert.deepEqual(engineLayersFrom(ARCHITECTURE), {
    layers: ['flow', 'step kinds', 'container primitives', 'base'],
    files: {
      'step-lifecycle.ts': 'flow',
      'step-build.ts': 'step kinds',
      'container-run.ts': 'container primitives',
      'step-readiness.ts': 'base',
      'cleaner/': 'base',
    },
  });
  assert.equal(engineLayersFrom('# Architecture\n'), undefined);
});

test('an engine file that imports a layer above it, or Docker values from the flow, is refused', async () => {
  const dir = await tree('engine', {
    'container-run.ts':
      "import { runStep } from './step-lifecycle.js';\nexport const r = runStep;\n",
    'step-lifecycle.ts':
      "import { DockerClient } from '@sluice/docker';\nimport { r } from './step-readiness.js';\nexport const runStep = [r, DockerClient];\n",
    'step-build.ts':
      "import { parseImageReference } from '@sluice/docker';\nimport type { DockerClient } from '@sluice/docker';\nimport { r } from './container-run.js';\nexport const b = [r, parseImageReference] as unknown as DockerClient;\n",
    'step-readiness.ts':
      "import type { DockerClient } from '@sluice/docker';\nexport const r = 1 as unknown as DockerClient;\n",
    'unlisted.ts': 'export const u = 1;\n',
    'cleaner/sweeps.ts': "import { b } from '../step-build.js';\nexport const s = b;\n",
    'step-lifecycle.test.ts': "import { r } from './container-run.js';\nexport const t = r;\n",
  });
  const layers = engineLayersFrom(ARCHITECTURE);
  assert.ok(layers);
  const problems = engineLayerProblems(importGraph(dir), {
    sources: dir,
    root: temp.path,
    ...layers,
  });
  assert.deepEqual(problems, [
    'engine/cleaner/sweeps.ts (base) imports step-build.ts (step kinds), a layer above it',
    'engine/container-run.ts (container primitives) imports step-lifecycle.ts (flow), a layer above it',
    'engine/step-lifecycle.ts (flow) imports values from @sluice/docker, which only step kinds and container primitives may',
    'engine/unlisted.ts: has no layer in docs/architecture/engine.md ("The engine\'s layers")',
  ]);
});
