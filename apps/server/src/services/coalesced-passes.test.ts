import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coalescePasses } from './coalesced-passes.js';

/** A pass function whose passes end when the test says; records each pass's key. */
function controlledPasses() {
  const started: string[] = [];
  const finishers: Array<(err?: Error) => void> = [];
  const pass = (key: string) =>
    new Promise<void>((resolve, reject) => {
      started.push(key);
      finishers.push((err) => (err === undefined ? resolve() : reject(err)));
    });
  const finish = async (index: number, err?: Error) => {
    finishers[index]?.(err);
    // Let the settled pass's callbacks (and a queued pass's start) run.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { pass, started, finish };
}

function settledFlag(promise: Promise<void>) {
  const state = { settled: false, error: undefined as unknown };
  promise.then(
    () => (state.settled = true),
    (err: unknown) => {
      state.settled = true;
      state.error = err;
    },
  );
  return state;
}

test('calls during a running pass share one pass that starts after it; the first call waits only for its own', async () => {
  const { pass, started, finish } = controlledPasses();
  const schedule = coalescePasses(pass);
  const first = settledFlag(schedule('acc'));
  const later = [schedule('acc'), schedule('acc'), schedule('acc')].map(settledFlag);
  assert.deepEqual(started, ['acc'], 'one pass runs; the later calls wait');
  await finish(0);
  assert.equal(first.settled, true);
  assert.deepEqual(
    later.map((s) => s.settled),
    [false, false, false],
    'the later calls need a pass that started after them',
  );
  assert.deepEqual(started, ['acc', 'acc'], 'one pass for the three later calls');
  await finish(1);
  assert.deepEqual(
    later.map((s) => s.settled),
    [true, true, true],
  );
  // Idle again: the next call starts a pass at once.
  const again = settledFlag(schedule('acc'));
  assert.equal(started.length, 3);
  await finish(2);
  assert.equal(again.settled, true);
});

test('keys do not wait for each other', async () => {
  const { pass, started, finish } = controlledPasses();
  const schedule = coalescePasses(pass);
  const a = settledFlag(schedule('a'));
  const b = settledFlag(schedule('b'));
  assert.deepEqual(started, ['a', 'b']);
  await finish(1);
  assert.deepEqual([a.settled, b.settled], [false, true]);
  await finish(0);
  assert.equal(a.settled, true);
});

test("a failed pass fails only its own callers; the queued pass still runs and decides the others'", async () => {
  const { pass, started, finish } = controlledPasses();
  const schedule = coalescePasses(pass);
  const first = settledFlag(schedule('acc'));
  const second = settledFlag(schedule('acc'));
  await finish(0, new Error('database went away'));
  assert.match(String(first.error), /database went away/);
  assert.equal(second.settled, false);
  assert.equal(started.length, 2);
  await finish(1);
  assert.deepEqual([second.settled, second.error], [true, undefined]);
});

test("reads: each caller gets the value of the pass it waited for, never an older one's", async () => {
  let version = 0;
  const releases: Array<() => void> = [];
  const read = coalescePasses(async (key: string) => {
    const seen = `${key}@${version}`;
    await new Promise<void>((resolve) => releases.push(resolve));
    return seen;
  });
  const first = read('page');
  version = 1; // a write committed while the first read runs
  const second = read('page');
  const third = read('page');
  releases[0]?.();
  assert.equal(await first, 'page@0');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(releases.length, 2, 'one more read for both later callers');
  releases[1]?.();
  assert.deepEqual(await Promise.all([second, third]), ['page@1', 'page@1']);
});
