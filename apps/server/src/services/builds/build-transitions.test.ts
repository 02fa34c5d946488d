import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSluiceError } from '@sluice/errors';
import { BuildStatus, FINISHED_STATUSES } from '@sluice/protocol';
import type { BuildStatus as Status } from '@sluice/protocol';
import { effectsOf, sourcesOf, transition, transitionsFrom } from './build-transitions.js';

const FINISH_EFFECTS = [
  'stamp-finished',
  'close-steps',
  'revoke-engine-token',
  'queue-stop-tasks',
  'publish-end',
  'schedule',
];

/** Every status a build in `from` may reach, with the move's name and effects. */
function moves(from: Status): Record<string, [string, readonly string[]]> {
  const allowed: Record<string, [string, readonly string[]]> = {};
  for (const to of BuildStatus.options) {
    try {
      const move = transition(from, to);
      allowed[to] = [move.transition, move.effects];
    } catch (err) {
      assert.ok(
        isSluiceError(err) && err.category === 'internal',
        `${from} → ${to}: ${String(err)}`,
      );
      assert.match(err.message, new RegExp(`"${to}" cannot follow "${from}"`));
    }
  }
  return allowed;
}

const finishes = (): Record<string, [string, readonly string[]]> =>
  Object.fromEntries(FINISHED_STATUSES.map((s) => [s, ['finish', FINISH_EFFECTS]]));

test('pending: elected by the scheduler, started by an early engine, or ended', () => {
  assert.deepEqual(moves('pending'), {
    elected: ['elect', ['stamp-elected', 'queue-start-tasks']],
    running: ['start', ['stamp-engine-started']],
    ...finishes(),
  });
});

test('elected: started by its engine or ended (a pod retry keeps it elected)', () => {
  assert.deepEqual(moves('elected'), {
    running: ['start', ['stamp-engine-started']],
    ...finishes(),
  });
});

test('running: waits for an approval or ends', () => {
  assert.deepEqual(moves('running'), {
    'pending-approval': ['await-approval', []],
    ...finishes(),
  });
});

test('pending-approval: runs on once answered, or ends', () => {
  assert.deepEqual(moves('pending-approval'), { running: ['resume', []], ...finishes() });
});

for (const status of FINISHED_STATUSES) {
  test(`${status}: final, every move refused with the reason`, () => {
    assert.deepEqual(moves(status), {});
    assert.deepEqual(transitionsFrom(status), []);
    assert.throws(
      () => transition(status, 'running'),
      new RegExp(`"running" cannot follow "${status}" \\(allowed after "${status}": none`),
    );
  });
}

test('a finished status may not follow itself, nor another finished one', () => {
  assert.throws(() => transition('error', 'error'), /cannot follow "error"/);
  assert.throws(() => transition('success', 'failure'), /cannot follow "success"/);
});

test("each move's sources are what the store's conditional updates use", () => {
  assert.deepEqual(sourcesOf('elect'), ['pending']);
  assert.deepEqual(sourcesOf('start'), ['pending', 'elected']);
  assert.deepEqual(sourcesOf('await-approval'), ['running']);
  assert.deepEqual(sourcesOf('resume'), ['pending-approval']);
  assert.deepEqual(sourcesOf('finish'), ['pending', 'elected', 'running', 'pending-approval']);
  assert.ok(effectsOf('finish').includes('schedule'), 'an ended build frees its place');
  assert.ok(!effectsOf('elect').includes('schedule'));
});
