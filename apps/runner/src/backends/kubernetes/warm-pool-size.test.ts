import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  planWarmPool,
  podsToMake,
  recentArrivals,
  refillWaits,
  warmPoolTarget,
} from './warm-pool-size.js';
import type { WarmPoolSettings } from './warm-pool-size.js';

const NOW = 1_000_000;
const settings = (own: Partial<WarmPoolSettings> = {}): WarmPoolSettings => ({
  mode: 'fixed',
  minSize: 1,
  maxSize: 5,
  windowMs: 60_000,
  idleMs: 300_000,
  ...own,
});

test('a fixed pool holds maxSize while builds arrive and shrinks to minSize once idle', () => {
  assert.equal(warmPoolTarget(settings(), [NOW - 1_000], NOW), 5);
  assert.equal(warmPoolTarget(settings(), [NOW - 299_999], NOW), 5);
  assert.equal(warmPoolTarget(settings(), [NOW - 300_000], NOW), 1);
  // An agent that has seen no build yet keeps the minimum.
  assert.equal(warmPoolTarget(settings(), [], NOW), 1);
});

test('an adaptive pool follows the arrivals of the last window, bounded by minSize and maxSize', () => {
  const adaptive = settings({ mode: 'adaptive', minSize: 2, maxSize: 4 });
  const at = (...ago: number[]) => ago.map((ms) => NOW - ms);
  assert.equal(warmPoolTarget(adaptive, at(1_000), NOW), 2, 'one arrival: the minimum');
  assert.equal(warmPoolTarget(adaptive, at(1_000, 2_000, 3_000), NOW), 3);
  assert.equal(warmPoolTarget(adaptive, at(1, 2, 3, 4, 5, 6, 7), NOW), 4, 'a burst: the maximum');
  // Arrivals older than the window no longer count; the pool is not yet idle.
  assert.equal(warmPoolTarget(adaptive, at(61_000, 62_000, 63_000), NOW), 2);
  assert.equal(warmPoolTarget(adaptive, at(400_000, 500_000), NOW), 2, 'idle: the minimum');
});

test('a maxSize below minSize counts as minSize', () => {
  assert.equal(warmPoolTarget(settings({ minSize: 3, maxSize: 1 }), [NOW], NOW), 3);
});

test('arrivals older than both the window and the idle time are forgotten', () => {
  const kept = recentArrivals(settings(), [NOW - 400_000, NOW - 200_000, NOW - 10], NOW);
  assert.deepEqual(kept, [NOW - 200_000, NOW - 10]);
});

test('a pool below its size is refilled; one above sheds starting pods, then its youngest', () => {
  const pods = [
    { name: 'old-ready', ready: true, createdAt: 1 },
    { name: 'young-ready', ready: true, createdAt: 5 },
    { name: 'starting', ready: false, createdAt: 3 },
  ];
  assert.deepEqual(planWarmPool(pods, 5), { create: 2, remove: [] });
  assert.deepEqual(planWarmPool(pods, 3), { create: 0, remove: [] });
  assert.deepEqual(planWarmPool(pods, 2), { create: 0, remove: ['starting'] });
  assert.deepEqual(planWarmPool(pods, 0), {
    create: 0,
    remove: ['starting', 'young-ready', 'old-ready'],
  });
});

test('a refill holds back while builds miss, and for the volumes of builds still running while a pod is ready', () => {
  const state = { missedLately: false, awaited: 0, released: 0, ready: 3 };
  assert.equal(podsToMake(2, state), 2, 'nothing to wait for');
  assert.equal(podsToMake(2, { ...state, missedLately: true }), 0, 'a burst: its builds first');
  assert.equal(
    podsToMake(2, { ...state, buildsWaitForRoom: true }),
    0,
    'builds wait for room: none taken from them',
  );
  // Two builds hold pods: their volumes come back when they end, and pods are made on them then.
  assert.equal(podsToMake(2, { ...state, awaited: 2 }), 0);
  assert.equal(podsToMake(3, { ...state, awaited: 2 }), 1, 'only what they will not give');
  // A volume already let go takes a pod at once.
  assert.equal(podsToMake(2, { ...state, awaited: 2, released: 1 }), 1);
  assert.equal(podsToMake(2, { ...state, awaited: 1, released: 2 }), 2);
  // With no pod ready, the next build would miss: the pool is made now.
  assert.equal(podsToMake(2, { ...state, awaited: 2, ready: 0 }), 2);
  assert.equal(podsToMake(2, { ...state, missedLately: true, ready: 0 }), 0);
});

test('while builds take pods one after another, the refill waits as long as half the pool is ready', () => {
  const state = { missedLately: false, awaited: 0, released: 2, ready: 3, target: 5 };
  assert.equal(podsToMake(2, state), 2, 'no take lately: made at once');
  const taking = { ...state, takenLately: true };
  assert.equal(podsToMake(2, taking), 0, '3 of 5 ready: the builds start without it');
  assert.equal(podsToMake(3, { ...taking, ready: 2 }), 0, '2 of 5 is half, rounded down');
  assert.equal(podsToMake(4, { ...taking, ready: 1 }), 4, 'below half: made at once');
  assert.equal(podsToMake(4, { ...taking, ready: 0 }), 4);
  // A pool of one or two: the last ready pod is kept for the next build, and then made again.
  assert.equal(refillWaits({ takenLately: true, target: 2, ready: 1 }), true);
  assert.equal(refillWaits({ takenLately: true, target: 1, ready: 0 }), false);
  assert.equal(refillWaits({ takenLately: true, target: 1, ready: 1 }), true);
  assert.equal(refillWaits({ takenLately: false, target: 5, ready: 5 }), false);
});
