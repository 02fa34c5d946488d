import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Wakeup } from './wakeup.js';

const never = new AbortController().signal;

test('a change ends the sleep under way; one made while the loop worked ends the next sleep at once', async () => {
  const wakeup = new Wakeup();
  let woke = false;
  const sleeping = wakeup.sleep(60_000, never).then(() => (woke = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(woke, false);
  wakeup.set();
  await sleeping;
  assert.equal(woke, true);
  // Three changes while working: one sleep ends at once, the next waits for its timer.
  wakeup.set();
  wakeup.set();
  wakeup.set();
  await wakeup.sleep(60_000, never);
  let second = false;
  const next = wakeup.sleep(60_000, never).then(() => (second = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(second, false, 'the changes were counted once');
  wakeup.set();
  await next;
});

test('the sleep ends at its timer, or when the signal aborts', async () => {
  const wakeup = new Wakeup();
  await wakeup.sleep(5, never);
  const controller = new AbortController();
  const sleeping = wakeup.sleep(60_000, controller.signal);
  controller.abort();
  await sleeping;
});
