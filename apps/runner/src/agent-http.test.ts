import assert from 'node:assert/strict';
import { test } from 'node:test';
import { healthVerdict } from './agent-http.js';
import type { AgentStatus } from './agent-http.js';
import { backoffMs } from './task-poller.js';

const status: AgentStatus = {
  stopping: false,
  lastPollAt: 1_000,
  startedAt: 0,
  health: undefined,
  tasksHeld: 0,
  buildsActive: 0,
};

test('healthy while polls return; unhealthy when stuck or stopping, with the reason', () => {
  assert.deepEqual(healthVerdict(status, 60_000, 30_000), {
    ok: true,
    reason: 'Polling for tasks',
  });
  assert.deepEqual(healthVerdict(status, 60_000, 91_000), {
    ok: false,
    reason: 'No answer from the control plane for 90 s',
  });
  assert.equal(healthVerdict({ ...status, stopping: true }, 60_000, 1_000).ok, false);
  assert.equal(healthVerdict({ ...status, lastPollAt: undefined }, 60_000, 59_000).ok, true);
});

test('poll backoff doubles from 1 s to a 30 s ceiling, jittered by ±20%', () => {
  assert.deepEqual(
    [1, 2, 3, 6, 20].map((n) => backoffMs(n, 0.5)),
    [1000, 2000, 4000, 30000, 30000],
  );
  assert.equal(backoffMs(1, 0), 800);
  assert.equal(backoffMs(1, 1), 1200);
});
