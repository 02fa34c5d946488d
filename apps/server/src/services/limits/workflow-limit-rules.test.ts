import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WORKFLOW_LIMITS } from '@sluice/runtime-spec';
import { decideLimits, electedAgeBeforeAnyLimit } from './workflow-limit-rules.js';
import type { BuildClocks } from './workflow-limit-rules.js';

const NOW = 1_000_000_000;
const running: BuildClocks = {
  status: 'running',
  createdAt: NOW - 10_000,
  electedAt: NOW - 9_000,
  engineStartedAt: NOW - 8_000,
  lastReportAt: NOW - 1_000,
  lastOutputAt: NOW - 1_000,
  stepStarted: true,
  postStepsStartedAt: null,
  stop: null,
  unhealthy: false,
  listeningSince: 0,
};
const OFF = Object.fromEntries(Object.keys(DEFAULT_WORKFLOW_LIMITS).map((k) => [k, 0])) as Required<
  typeof DEFAULT_WORKFLOW_LIMITS
>;

test('a limit of 0 is off: a build over every other limit is left alone', () => {
  const old = { ...running, createdAt: 0, lastReportAt: 0, lastOutputAt: 0, stepStarted: false };
  assert.equal(decideLimits(old, OFF, NOW), undefined);
});

test('an unreachable engine ends the build at once, even while it is being stopped', () => {
  const build = {
    ...running,
    lastReportAt: NOW - 5_000,
    stop: { requestedAt: NOW, status: null, reason: null },
  };
  const limits = {
    ...OFF,
    TIME_ENGINE_INACTIVE_UNTIL_TERMINATION: 4,
    MAXIMUM_TERMINATING_STATE_AGE_ALLOWED: 1,
  };
  assert.deepEqual(decideLimits(build, limits, NOW), {
    kind: 'finish',
    status: 'error',
    reason: 'stopped: no report from the engine for 4 s (TIME_ENGINE_INACTIVE_UNTIL_TERMINATION)',
  });
});

test('a build waiting for an approval is not inactive; a running one is asked to stop', () => {
  const limits = { ...OFF, TIME_INACTIVE_UNTIL_TERMINATION: 1 };
  assert.equal(
    decideLimits({ ...running, status: 'pending-approval' }, limits, NOW + 5_000),
    undefined,
  );
  assert.equal(decideLimits(running, limits, NOW + 5_000)?.kind, 'stop');
});

test('a build being stopped is judged only by the terminating limits, keeping why it was stopped', () => {
  const stop = { requestedAt: NOW - 3_000, status: 'error' as const, reason: 'stopped: X' };
  const limits = {
    ...OFF,
    TIME_INACTIVE_UNTIL_TERMINATION: 1,
    MAXIMUM_TERMINATING_STATE_AGE_ALLOWED: 2,
  };
  assert.deepEqual(decideLimits({ ...running, stop }, limits, NOW), {
    kind: 'finish',
    status: 'error',
    reason:
      'stopped: X; stopped: the build was still terminating after 2 s (MAXIMUM_TERMINATING_STATE_AGE_ALLOWED)',
  });
});

test('the unhealthy mark is set once and lifted when the engine reports again', () => {
  const limits = { ...OFF, TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY: 1 };
  const silent = { ...running, lastReportAt: NOW - 2_000 };
  assert.equal(decideLimits(silent, limits, NOW)?.kind, 'unhealthy');
  assert.equal(decideLimits({ ...silent, unhealthy: true }, limits, NOW), undefined);
  assert.equal(decideLimits({ ...running, unhealthy: true }, limits, NOW)?.kind, 'healthy');
});

test('silence from before the control plane could listen (a restart, a database outage) does not count', () => {
  const limits = {
    ...OFF,
    TIME_ENGINE_INACTIVE_UNTIL_TERMINATION: 300,
    TIME_INACTIVE_UNTIL_TERMINATION: 60,
  };
  const silent = { ...running, lastReportAt: NOW - 600_000, lastOutputAt: NOW - 600_000 };
  assert.equal(decideLimits({ ...silent, listeningSince: NOW - 10_000 }, limits, NOW), undefined);
  assert.equal(decideLimits(silent, limits, NOW)?.kind, 'finish');
});

test('an elected build is read once it is as old as the smallest age limit of any runtime, not before', () => {
  const { MAXIMUM_ELECTED_STATE_AGE_ALLOWED: elected } = DEFAULT_WORKFLOW_LIMITS;
  assert.equal(electedAgeBeforeAnyLimit([DEFAULT_WORKFLOW_LIMITS]), elected * 1000);
  // A runtime's own, smaller, limit on either clock wins; 0 (off) and unset do not count.
  const sets = [
    DEFAULT_WORKFLOW_LIMITS,
    { MAXIMUM_ELECTED_STATE_AGE_ALLOWED: 0 },
    { MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION: 120 },
    { TIME_INACTIVE_UNTIL_TERMINATION: 5 },
  ];
  assert.equal(electedAgeBeforeAnyLimit(sets), 120_000);
  assert.equal(electedAgeBeforeAnyLimit([OFF, {}]), undefined);
  // Younger than that, no set of limits acts on an elected build; as old, the smallest does.
  const young = { ...running, status: 'elected' as const, createdAt: NOW - 119_000 };
  young.electedAt = young.createdAt;
  const limits = { ...DEFAULT_WORKFLOW_LIMITS, ...sets[2] };
  assert.equal(decideLimits(young, limits, NOW), undefined);
  assert.equal(decideLimits(young, limits, NOW + 2_000)?.kind, 'finish');
});
