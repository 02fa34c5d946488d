import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StepDependency, StepWhen } from '@sluice/pipeline';
import type { StepResult } from './build-events.js';
import type { StepState } from './build-scope.js';
import { CANCELLED, isFailure, readinessOf } from './step-readiness.js';
import type { ResultOf } from './step-readiness.js';

type On = StepDependency['on'][number];

/** `when.steps` of a step waiting for each `name: on` (`on` separated by `|`). */
function after(mode: 'all' | 'any', deps: Record<string, string>): StepWhen['steps'] {
  return {
    mode,
    dependencies: Object.entries(deps).map(([step, on]) => ({ step, on: on.split('|') as On[] })),
  };
}

function results(states: Record<string, StepState>): ResultOf {
  return (step) => states[step];
}

const FAILED = 'step "a" failed';

test('steps without when.steps all start at once; a step after them waits', () => {
  const dag: Record<string, StepWhen['steps']> = {
    a: undefined,
    b: { mode: 'all', dependencies: [] },
    c: after('all', { a: 'success', b: 'success' }),
  };
  const decide = (states: Record<string, StepState>) =>
    Object.fromEntries(
      Object.entries(dag).map(([name, when]) => [
        name,
        readinessOf(when, results(states), undefined),
      ]),
    );
  assert.deepEqual(decide({}), { a: 'run', b: 'run', c: 'wait' });
  assert.deepEqual(decide({ a: 'running', b: 'running' }), { a: 'run', b: 'run', c: 'wait' });
  assert.equal(decide({ a: 'success', b: 'success' }).c, 'run');
});

test('a dependency on success waits while the step is unseen, pending or running', () => {
  const when = after('all', { a: 'success' });
  for (const state of [undefined, 'pending', 'running'] as const)
    assert.equal(readinessOf(when, results(state ? { a: state } : {}), undefined), 'wait', state);
});

test('a dependency on success is met by success only; anything else skips the step', () => {
  const when = after('all', { a: 'success' });
  assert.equal(readinessOf(when, results({ a: 'success' }), undefined), 'run');
  for (const result of ['failure', 'skipped', 'terminated', 'timeout', 'denied'] as const)
    assert.deepEqual(readinessOf(when, results({ a: result }), undefined), {
      skip: 'when.steps: a on success not met',
    });
});

test('a dependency on failure is met by failure, timeout and denied', () => {
  const when = after('all', { a: 'failure' });
  for (const result of ['failure', 'timeout', 'denied'] as const)
    assert.equal(readinessOf(when, results({ a: result }), undefined), 'run', result);
  for (const result of ['success', 'skipped', 'terminated'] as const)
    assert.deepEqual(
      readinessOf(when, results({ a: result }), undefined),
      { skip: 'when.steps: a on failure not met' },
      result,
    );
});

test('a dependency on finished is met by any result, skipped and terminated included', () => {
  const when = after('all', { a: 'finished' });
  for (const result of ['success', 'failure', 'skipped', 'terminated', 'timeout'] as const)
    assert.equal(readinessOf(when, results({ a: result }), undefined), 'run', result);
  assert.equal(readinessOf(when, results({ a: 'running' }), undefined), 'wait');
});

test('a dependency on skipped is met by a skipped step only', () => {
  const when = after('all', { a: 'skipped' });
  assert.equal(readinessOf(when, results({ a: 'skipped' }), undefined), 'run');
  assert.deepEqual(readinessOf(when, results({ a: 'success' }), undefined), {
    skip: 'when.steps: a on skipped not met',
  });
});

test('several `on` values are alternatives', () => {
  const when = after('all', { a: 'success|failure' });
  assert.equal(readinessOf(when, results({ a: 'success' }), undefined), 'run');
  assert.equal(readinessOf(when, results({ a: 'failure' }), undefined), 'run');
  assert.deepEqual(readinessOf(when, results({ a: 'skipped' }), undefined), {
    skip: 'when.steps: a on success|failure not met',
  });
});

test('all: a fan-in waits for every dependency and is skipped by the first one unmet', () => {
  const when = after('all', { a: 'success', b: 'success' });
  assert.equal(readinessOf(when, results({ a: 'success', b: 'running' }), undefined), 'wait');
  assert.equal(readinessOf(when, results({ a: 'success', b: 'success' }), undefined), 'run');
  // b still running: a's failure already decides.
  assert.deepEqual(readinessOf(when, results({ a: 'failure', b: 'running' }), undefined), {
    skip: 'when.steps: a on success, b on success not met',
  });
});

test('any: one met dependency is enough; skipped only once every one is decided unmet', () => {
  const when = after('any', { a: 'success', b: 'success' });
  assert.equal(readinessOf(when, results({ a: 'success', b: 'running' }), undefined), 'run');
  assert.equal(readinessOf(when, results({ a: 'failure', b: 'running' }), undefined), 'wait');
  assert.deepEqual(readinessOf(when, results({ a: 'failure', b: 'skipped' }), undefined), {
    skip: 'when.steps: a on success, b on success not met',
  });
});

test('after a fail_fast failure only failure handlers still start', () => {
  const states = results({ a: 'failure', b: 'success' });
  assert.deepEqual(readinessOf(undefined, states, FAILED), { skip: FAILED });
  assert.deepEqual(readinessOf(after('all', { b: 'success' }), states, FAILED), { skip: FAILED });
  assert.equal(readinessOf(after('all', { a: 'failure' }), states, FAILED), 'run');
  assert.equal(readinessOf(after('all', { b: 'finished' }), states, FAILED), 'run');
  // A handler whose dependency has not ended yet still waits for it.
  assert.equal(
    readinessOf(after('all', { c: 'finished' }), results({ c: 'running' }), FAILED),
    'wait',
  );
});

test('after a cancel every waiting step is skipped, failure handlers too', () => {
  const states = results({ a: 'terminated' });
  for (const when of [undefined, after('all', { a: 'finished' }), after('any', { a: 'failure' })])
    assert.deepEqual(readinessOf(when, states, CANCELLED), { skip: CANCELLED });
});

test('failure, timeout and denied count as failures; the other results do not', () => {
  const all: StepResult[] = ['success', 'failure', 'skipped', 'terminated', 'timeout', 'denied'];
  assert.deepEqual(all.filter(isFailure), ['failure', 'timeout', 'denied']);
});
