import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay } from './backoff.js';

test('the delay doubles from the base after each failure, up to the most', () => {
  const policy = { baseMs: 1000, maxMs: 30_000 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(n, policy)),
    [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000],
  );
  assert.equal(backoffDelay(0, policy), 1000, 'no failure yet counts as the first');
  assert.equal(backoffDelay(5000, policy), 30_000, 'a huge count does not overflow');
});

test('without a most the delay keeps growing', () => {
  assert.equal(backoffDelay(4, { baseMs: 500 }), 4000);
});

test('jitter spreads the delay both ways by its fraction', () => {
  const policy = { baseMs: 1000, maxMs: 30_000, jitter: 0.2 };
  assert.equal(backoffDelay(1, policy, 0), 800);
  assert.equal(backoffDelay(1, policy, 0.5), 1000);
  assert.equal(backoffDelay(1, policy, 1), 1200);
  assert.equal(backoffDelay(10, policy, 1), 36_000);
});
