import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Task } from '@sluice/protocol';
import { TaskDispatcher } from './task-dispatcher.js';
import { testTask } from './task.test-support.js';

function task(id: string, buildId: string | null, position = 0): Task {
  return testTask({ id, type: 'CreatePod', buildId, runtime: 'rt', position, attempt: 1 });
}

/** A runner whose tasks finish when the test says so, recording what ran concurrently. */
function controlledRunner() {
  const pending = new Map<string, () => void>();
  const started: string[] = [];
  const running = new Set<string>();
  let most = 0;
  const buildsRunning = new Map<string, number>();
  let overlapInBuild = false;
  return {
    started,
    get most() {
      return most;
    },
    get overlapInBuild() {
      return overlapInBuild;
    },
    run(t: Task): Promise<void> {
      started.push(t.id);
      running.add(t.id);
      most = Math.max(most, running.size);
      const key = t.buildId ?? t.id;
      const n = (buildsRunning.get(key) ?? 0) + 1;
      if (n > 1) overlapInBuild = true;
      buildsRunning.set(key, n);
      return new Promise((resolve) => {
        pending.set(t.id, () => {
          running.delete(t.id);
          buildsRunning.set(key, (buildsRunning.get(key) ?? 1) - 1);
          resolve();
        });
      });
    },
    async finish(id: string): Promise<void> {
      const done = pending.get(id);
      assert.ok(done, `task ${id} is not running (running: ${[...pending.keys()].join(',')})`);
      pending.delete(id);
      done();
      await new Promise((r) => setImmediate(r));
    },
  };
}

test('the tasks of one build run in order, one at a time', async () => {
  const runner = controlledRunner();
  const d = TaskDispatcher.create({ concurrency: 4, queueSize: 10, run: (t) => runner.run(t) });
  d.submit([task('a1', 'a', 0), task('a2', 'a', 1), task('a3', 'a', 2)]);
  assert.deepEqual(runner.started, ['a1']);
  await runner.finish('a1');
  assert.deepEqual(runner.started, ['a1', 'a2']);
  d.submit([task('a4', 'a', 3)]);
  await runner.finish('a2');
  await runner.finish('a3');
  await runner.finish('a4');
  assert.deepEqual(runner.started, ['a1', 'a2', 'a3', 'a4']);
  assert.equal(runner.overlapInBuild, false);
  assert.equal(d.held, 0);
});

test('at most `concurrency` builds are worked at once; the next starts when one ends', async () => {
  const runner = controlledRunner();
  const actives: number[] = [];
  const d = TaskDispatcher.create({
    concurrency: 2,
    queueSize: 10,
    run: (t) => runner.run(t),
    onActiveChange: (n) => actives.push(n),
  });
  d.submit([task('a1', 'a'), task('b1', 'b'), task('c1', 'c')]);
  assert.deepEqual(runner.started, ['a1', 'b1']);
  assert.equal(d.active, 2);
  await runner.finish('b1');
  assert.deepEqual(runner.started, ['a1', 'b1', 'c1']);
  await runner.finish('a1');
  await runner.finish('c1');
  assert.equal(runner.most, 2);
  assert.equal(Math.max(...actives), 2);
  assert.equal(d.active, 0);
});

test('room shrinks with held tasks, and waitForRoom resolves when one is done', async () => {
  const runner = controlledRunner();
  const d = TaskDispatcher.create({ concurrency: 1, queueSize: 2, run: (t) => runner.run(t) });
  d.submit([task('a1', 'a'), task('b1', 'b')]);
  assert.equal(d.room, 0);
  let roomy = false;
  const waiting = d.waitForRoom().then(() => (roomy = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(roomy, false);
  await runner.finish('a1');
  await waiting;
  assert.equal(d.room, 1);
  await runner.finish('b1');
});

test('a task handed out again while still held is not taken twice', async () => {
  const runner = controlledRunner();
  const d = TaskDispatcher.create({ concurrency: 2, queueSize: 10, run: (t) => runner.run(t) });
  assert.equal(d.submit([task('a1', 'a'), task('a2', 'a')]), 2);
  assert.equal(d.submit([task('a1', 'a'), task('a2', 'a')]), 0);
  await runner.finish('a1');
  await runner.finish('a2');
  assert.deepEqual(runner.started, ['a1', 'a2']);
});

test('busyBuilds names the builds with held tasks; tasks without a build are their own', async () => {
  const runner = controlledRunner();
  const d = TaskDispatcher.create({ concurrency: 5, queueSize: 10, run: (t) => runner.run(t) });
  d.submit([task('a1', 'a'), task('x', null)]);
  assert.deepEqual([...d.busyBuilds()].sort(), ['a', 'task:x']);
  await runner.finish('a1');
  await runner.finish('x');
  assert.equal(d.busyBuilds().size, 0);
});

test('drain resolves true once every task is done, false when the time runs out', async () => {
  const runner = controlledRunner();
  const d = TaskDispatcher.create({ concurrency: 1, queueSize: 10, run: (t) => runner.run(t) });
  d.submit([task('a1', 'a')]);
  assert.equal(await d.drain(10), false);
  const drained = d.drain(60_000);
  await runner.finish('a1');
  assert.equal(await drained, true);
  assert.equal(await d.drain(0), true);
});
