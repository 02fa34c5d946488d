import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError } from '@sluice/errors';
import { createTokenBucket } from './token-bucket.js';
import type { Clock } from './token-bucket.js';

/** A clock whose time moves only when the test says; sleeps are recorded and resolve at once. */
function manualClock(): Clock & { advance(ms: number): void; sleeps: number[] } {
  let time = 1_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      sleeps.push(ms);
      return Promise.resolve();
    },
  };
}

test('burst requests go at once, later ones wait their turn in arrival order', async () => {
  const clock = manualClock();
  const bucket = createTokenBucket({ qps: 2, burst: 2, clock });
  await Promise.all([1, 2, 3, 4, 5].map(() => bucket.take()));
  assert.deepEqual(clock.sleeps, [500, 1000, 1500]);
  assert.deepEqual(bucket.stats(), { taken: 5, throttled: 3 });
});

test('idle time refills tokens up to the burst and no further', async () => {
  const clock = manualClock();
  const bucket = createTokenBucket({ qps: 10, burst: 3, clock });
  for (let i = 0; i < 3; i += 1) await bucket.take();
  clock.advance(60_000);
  for (let i = 0; i < 4; i += 1) await bucket.take();
  assert.deepEqual(clock.sleeps, [100]);
  assert.deepEqual(bucket.stats(), { taken: 7, throttled: 1 });
});

test('a token refills in 1/qps seconds', async () => {
  const clock = manualClock();
  const bucket = createTokenBucket({ qps: 4, burst: 1, clock });
  await bucket.take();
  clock.advance(250);
  await bucket.take();
  clock.advance(100);
  await bucket.take();
  assert.deepEqual(clock.sleeps, [150]);
});

test('an aborted wait gives its token back and rejects', async () => {
  const clock = manualClock();
  const bucket = createTokenBucket({ qps: 1, burst: 1, clock });
  await bucket.take();
  const controller = new AbortController();
  controller.abort(new Error('agent stopping'));
  await assert.rejects(bucket.take(controller.signal), /agent stopping/);
  clock.advance(1_000);
  await bucket.take();
  assert.deepEqual(clock.sleeps, []);
  assert.deepEqual(bucket.stats(), { taken: 2, throttled: 0 });
});

test('a wait aborted while sleeping returns its reservation', async () => {
  const clock = manualClock();
  const controller = new AbortController();
  const bucket = createTokenBucket({
    qps: 1,
    burst: 1,
    clock: {
      ...clock,
      sleep: (ms) => {
        clock.sleeps.push(ms);
        controller.abort(new Error('cancelled'));
        return Promise.reject(new Error('cancelled'));
      },
    },
  });
  await bucket.take();
  await assert.rejects(bucket.take(controller.signal), /cancelled/);
  clock.advance(1_000);
  await bucket.take();
  assert.deepEqual(clock.sleeps, [1000]);
  assert.deepEqual(bucket.stats(), { taken: 2, throttled: 1 });
});

test('qps and burst that cannot work are refused with the value named', () => {
  for (const [qps, burst, text] of [
    [0, 1, 'QPS 0'],
    [-5, 1, 'QPS -5'],
    [Number.NaN, 1, 'QPS NaN'],
    [10, 0, 'burst 0'],
    [10, 1.5, 'burst 1.5'],
  ] as const) {
    assert.throws(
      () => createTokenBucket({ qps, burst }),
      (err: unknown) =>
        err instanceof InputError &&
        err.code === 'SLUICE_KUBE_CONFIG_INVALID' &&
        err.message.includes(text),
    );
  }
});
