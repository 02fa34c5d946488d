import { expect, test } from 'vitest';
import type { BuildStep } from '@sluice/protocol';
import { graphEdges, layoutGraph } from './pipeline-graph.js';

let position = 0;
function step(name: string, options: Partial<BuildStep> = {}): BuildStep {
  return {
    ...{ name, position: position++, parent: null, stage: null, attempt: 1, status: 'success' },
    ...{ exitCode: null, reason: null, startedAt: null, finishedAt: null, answeredBy: null },
    ...{ answeredAt: null, title: null, needs: [], block: null },
    ...options,
  };
}

const on = ['success'];

test('top-level steps run in order; a parallel block is entered and left at its steps', () => {
  const steps = [
    step('clone'),
    step('checks', { block: 'parallel' }),
    step('lint', { parent: 'checks' }),
    step('unit', { parent: 'checks' }),
    step('push'),
  ];
  expect(graphEdges(steps)).toEqual([
    ['clone', 'lint'],
    ['clone', 'unit'],
    ['lint', 'push'],
    ['unit', 'push'],
  ]);
});

test("a DAG follows each step's when.steps; a step without them starts at once", () => {
  const steps = [
    step('setup'),
    step('lint', { needs: [{ step: 'setup', on }] }),
    step('test', { needs: [{ step: 'setup', on }] }),
    step('deploy', {
      needs: [
        { step: 'lint', on },
        { step: 'test', on },
      ],
    }),
    step('notes'),
  ];
  expect(graphEdges(steps)).toEqual([
    ['setup', 'lint'],
    ['setup', 'test'],
    ['lint', 'deploy'],
    ['test', 'deploy'],
  ]);
});

test('dagre lays each step out once, later steps to the right, stages around their steps', () => {
  const steps = [
    step('build', { stage: 'compile' }),
    step('unit', { stage: 'check' }),
    step('lint', { stage: 'check' }),
  ];
  const graph = layoutGraph(steps);
  expect(graph.nodes.map((n) => n.step.name)).toEqual(['build', 'unit', 'lint']);
  const x = Object.fromEntries(graph.nodes.map((n) => [n.step.name, n.x]));
  expect(x.unit).toBeGreaterThan(x.build ?? Infinity);
  expect(graph.stages.map((s) => s.name)).toEqual(['compile', 'check']);
  expect(graph.edges.every((e) => e.points.length >= 2)).toBe(true);
});

test("a sequential group's steps run in order; a parallel block inside it is entered at once", () => {
  const steps = [
    step('clone'),
    step('release', { block: 'sequential' }),
    step('tag', { parent: 'release' }),
    step('publish', { parent: 'release', block: 'parallel' }),
    step('npm', { parent: 'publish' }),
    step('docker', { parent: 'publish' }),
    step('notify', { parent: 'release' }),
    step('done'),
  ];
  expect(graphEdges(steps)).toEqual([
    ['clone', 'tag'],
    ['tag', 'npm'],
    ['tag', 'docker'],
    ['npm', 'notify'],
    ['docker', 'notify'],
    ['notify', 'done'],
  ]);
});

test('blocks are boxes around their steps, an inner block inside its outer one', () => {
  const steps = [
    step('outer', { block: 'parallel', stage: 'test' }),
    step('inner', { parent: 'outer', block: 'sequential', stage: 'test' }),
    step('a', { parent: 'inner', stage: 'test' }),
    step('b', { parent: 'inner', stage: 'test' }),
    step('c', { parent: 'outer', stage: 'test' }),
  ];
  const graph = layoutGraph(steps);
  expect(graph.nodes.map((n) => n.step.name)).toEqual(['a', 'b', 'c']);
  expect(graph.blocks.map((b) => [b.name, b.kind])).toEqual([
    ['outer', 'parallel'],
    ['inner', 'sequential'],
  ]);
  const box = Object.fromEntries([...graph.blocks, ...graph.stages].map((b) => [b.name, b]));
  const inside = (x: number, y: number, name: string) => {
    const b = box[name];
    if (!b) return false;
    return Math.abs(x - b.x) <= b.width / 2 && Math.abs(y - b.y) <= b.height / 2;
  };
  for (const node of graph.nodes) expect(inside(node.x, node.y, 'outer')).toBe(true);
  for (const node of graph.nodes) expect(inside(node.x, node.y, 'test')).toBe(true);
  const [a, b, c] = graph.nodes;
  expect(inside(a?.x ?? 0, a?.y ?? 0, 'inner') && inside(b?.x ?? 0, b?.y ?? 0, 'inner')).toBe(true);
  expect(inside(c?.x ?? 0, c?.y ?? 0, 'inner')).toBe(false);
  expect(b?.x).toBeGreaterThan(a?.x ?? Infinity);
});
