import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineEvent } from '@sluice/protocol';
import { toApiItem } from './engine-api-events.js';

const AT = Date.parse('2025-01-02T03:04:05.000Z');

test('a step start carries its title, lane and retry attempt, and the API schema accepts it', () => {
  const item = toApiItem({
    type: 'step-started',
    step: 'unit',
    title: 'Unit tests',
    parent: 'checks',
    attempt: 2,
    at: AT,
  });
  assert.deepEqual(item, {
    kind: 'event',
    event: {
      type: 'step-started',
      step: 'unit',
      title: 'Unit tests',
      parent: 'checks',
      attempt: 2,
      at: '2025-01-02T03:04:05.000Z',
    },
  });
  assert.ok(item?.kind === 'event' && EngineEvent.safeParse(item.event).success);
  assert.deepEqual(
    toApiItem({ type: 'step-started', step: 'build', title: undefined, at: AT }),
    {
      kind: 'event',
      event: { type: 'step-started', step: 'build', at: '2025-01-02T03:04:05.000Z' },
    },
    'a top-level first attempt without a title sends none of them',
  );
});

test('an approval request and the new results go to the API as they are', () => {
  const request = toApiItem({
    type: 'approval-requested',
    step: 'deploy',
    timeoutMs: 3_600_000,
    finalState: 'denied',
    at: AT,
  });
  assert.ok(request?.kind === 'event');
  assert.deepEqual(EngineEvent.parse(request.event), {
    type: 'approval-requested',
    step: 'deploy',
    timeoutMs: 3_600_000,
    finalState: 'denied',
    at: '2025-01-02T03:04:05.000Z',
  });
  for (const result of ['timeout', 'denied'] as const) {
    const item = toApiItem({
      type: 'step-finished',
      step: 'deploy',
      result,
      reason: `it was ${result}`,
      durationMs: 10,
      at: AT,
    });
    assert.ok(item?.kind === 'event');
    const parsed = EngineEvent.parse(item.event);
    assert.ok(parsed.type === 'step-finished');
    assert.equal(parsed.status, result);
  }
});

test('lines of one millisecond and of the next each carry their own time', () => {
  const times = [AT, AT, AT + 1, AT, AT + 86_400_000].map((at) => {
    const item = toApiItem({ type: 'step-log', step: 's', stream: 'stdout', line: 'x', at });
    return item?.kind === 'line' ? item.line.at : undefined;
  });
  assert.deepEqual(times, [
    '2025-01-02T03:04:05.000Z',
    '2025-01-02T03:04:05.000Z',
    '2025-01-02T03:04:05.001Z',
    '2025-01-02T03:04:05.000Z',
    '2025-01-03T03:04:05.000Z',
  ]);
});

test("the build's volume, warm or new, goes with Docker's time as an ISO string", () => {
  const item = toApiItem({
    type: 'volume-ready',
    volume: 'sluice-volume-p1',
    reused: true,
    createdAt: '2026-11-20T09:00:00+01:00',
    at: AT,
  });
  assert.deepEqual(item, {
    kind: 'event',
    event: {
      type: 'volume-ready',
      volume: 'sluice-volume-p1',
      reused: true,
      createdAt: '2026-11-20T08:00:00.000Z',
      at: '2025-01-02T03:04:05.000Z',
    },
  });
  assert.ok(item?.kind === 'event' && EngineEvent.safeParse(item.event).success);
  const fresh = toApiItem({
    type: 'volume-ready',
    volume: 'sluice-volume-p2',
    reused: false,
    createdAt: undefined,
    at: AT,
  });
  assert.ok(fresh?.kind === 'event' && fresh.event.type === 'volume-ready');
  assert.equal(fresh.event.createdAt, null);
});
