import assert from 'node:assert/strict';
import { test } from 'node:test';
import { healthVerdict, readyVerdict } from './agent-http.js';
import type { AgentStatus } from './agent-http.js';
import { backoffMs } from './task-poller.js';

const status: AgentStatus = {
  stopping: false,
  lastPollAt: 1_000,
  controlPlaneUrl: 'http://10.0.0.9:8080',
  lastContactAt: 1_000,
  contactError: undefined,
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

test('ready only while the control plane answered the last call, naming it when it did not', () => {
  assert.deepEqual(readyVerdict(status), {
    ok: true,
    reason: 'Connected to the control plane at http://10.0.0.9:8080',
  });
  assert.deepEqual(readyVerdict({ ...status, lastContactAt: undefined }), {
    ok: false,
    reason: 'Not connected to the control plane at http://10.0.0.9:8080 yet',
  });
  assert.deepEqual(readyVerdict({ ...status, contactError: 'connect ECONNREFUSED' }), {
    ok: false,
    reason: 'Cannot reach the control plane at http://10.0.0.9:8080: connect ECONNREFUSED',
  });
  assert.equal(readyVerdict({ ...status, stopping: true }).ok, false);
});
