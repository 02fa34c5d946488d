import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sleep } from './sleep.js';

test('sleep resolves true once the time has passed', async () => {
  const started = performance.now();
  assert.equal(await sleep(30), true);
  assert.ok(performance.now() - started >= 25);
  assert.equal(await sleep(0), true);
});

test('an abort ends the wait at once with false, and never throws', async () => {
  const controller = new AbortController();
  const waiting = sleep(60_000, controller.signal);
  controller.abort(new Error('cancelled'));
  assert.equal(await waiting, false);
  assert.equal(await sleep(60_000, controller.signal), false, 'already aborted');
});
