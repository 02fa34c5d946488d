import { expect, test } from 'vitest';
import type { BuildStep } from '@sluice/protocol';
import { graphEdges, layoutGraph } from './pipeline-graph.js';

let position = 0;
function step(name: string, options: Partial<BuildStep> = {}): BuildStep {
  return {
    ...{ name, position: position++, parent: null, stage: null, attempt: 1, status: 'success' },
    ...{ exitCode: null, reason: null, startedAt: null, finishedAt: null, answeredBy: null },
    ...{ answeredAt: null, title: null, needs: [] },
    ...options,
  };
}

const on = ['success'];

test('top-level steps run in order; a parallel block is entered and left at its steps', () => {
  const steps = [
    step('clone'),
    step('checks'),
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
