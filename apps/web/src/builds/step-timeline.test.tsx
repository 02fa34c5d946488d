import { afterEach, expect, test } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import type { BuildStep } from '@sluice/protocol';
import { StepTimeline, stageGroups } from './step-timeline.js';

afterEach(cleanup);

function step(name: string, position: number, stage: string | null, parent: string | null = null) {
  const started = '2026-01-01T00:00:00.000Z';
  return {
    name,
    position,
    parent,
    stage,
    attempt: 1,
    status: 'success',
    exitCode: 0,
    reason: null,
    startedAt: started,
    finishedAt: '2026-01-01T00:00:01.000Z',
    answeredBy: null,
    answeredAt: null,
    title: null,
    needs: [],
    block: null,
  } satisfies BuildStep;
}

// `stages: [clone, build, test]`; `unit` and `lint` run in the parallel block `checks` of `test`.
const steps = [
  step('checks', 3, 'test'),
  step('unit', 4, 'test', 'checks'),
  step('main_clone', 0, 'clone'),
  step('image', 1, 'build'),
  step('notify', 6, null),
  step('lint', 5, 'test', 'checks'),
  step('push', 2, 'build'),
];

test('steps are grouped by stage in the order of `stages:`, steps of no stage last', () => {
  const groups = stageGroups(steps, ['clone', 'build', 'test', 'deploy']);
  expect(groups.map((g) => [g.stage, g.steps.map((s) => s.name)])).toEqual([
    ['clone', ['main_clone']],
    ['build', ['image', 'push']],
    ['test', ['checks', 'unit', 'lint']],
    [null, ['notify']],
  ]);
});

test('without a stages list the steps stages come in the order they first run; none is one group', () => {
  expect(stageGroups(steps).map((g) => g.stage)).toEqual(['clone', 'build', 'test', null]);
  const plain = steps.map((s) => ({ ...s, stage: null }));
  expect(stageGroups(plain, [])).toEqual([{ stage: null, steps: stageGroups(plain)[0]!.steps }]);
});

test('the timeline shows each stage as a row group holding its steps', () => {
  render(<StepTimeline steps={steps} stages={['clone', 'build', 'test']} />);
  const table = screen.getByRole('table', { name: 'Steps' });
  const groups = within(table).getAllByRole('rowgroup').slice(1); // the first is the header
  expect(groups.map((g) => within(g).getAllByRole('rowheader')[0]?.textContent)).toEqual([
    'clone',
    'build',
    'test',
    'No stage',
  ]);
  const test = within(table).getByRole('rowheader', { name: 'test' }).closest('tbody');
  expect(test?.querySelectorAll('tr[data-step]').length).toBe(3);
  expect(test?.getAttribute('data-stage')).toBe('test');
});

test('a pipeline without stages shows no stage rows', () => {
  render(<StepTimeline steps={steps.map((s) => ({ ...s, stage: null }))} stages={[]} />);
  expect(screen.queryByText('No stage')).toBeNull();
  expect(screen.getAllByRole('rowheader').length).toBe(steps.length);
});
