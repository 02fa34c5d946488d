import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InternalError } from '@sluice/errors';
import { ChannelRegistry, checkChannel } from './notifications.js';
import type { ChannelOps } from './notifications.js';

/** Records LISTEN/UNLISTEN calls; `failNext` makes the next listen reject. */
function recordingOps(): ChannelOps & { calls: string[]; failNext: boolean } {
  const ops = {
    calls: [] as string[],
    failNext: false,
    listen: (channel: string) => {
      if (ops.failNext) {
        ops.failNext = false;
        return Promise.reject(new Error('listen failed'));
      }
      ops.calls.push(`listen ${channel}`);
      return Promise.resolve();
    },
    unlisten: (channel: string) => {
      ops.calls.push(`unlisten ${channel}`);
      return Promise.resolve();
    },
  };
  return ops;
}

test('channel names are plain lowercase identifiers', () => {
  for (const ok of ['tasks', 'build_42', '_x', 'a'.repeat(63)]) assert.equal(checkChannel(ok), ok);
  for (const bad of ['', 'Tasks', '1x', 'a-b', 'x"; drop', 'a'.repeat(64)]) {
    assert.throws(
      () => checkChannel(bad),
      (err: unknown) => err instanceof InternalError && err.code === 'SLUICE_DB_CHANNEL_INVALID',
    );
  }
});

test('LISTEN for the first handler, UNLISTEN after the last, dispatch by channel', async () => {
  const ops = recordingOps();
  const registry = new ChannelRegistry(ops, undefined);
  const got: string[] = [];
  const offA = await registry.add('tasks', (p) => got.push(`a:${p}`));
  const offB = await registry.add('tasks', (p) => got.push(`b:${p}`));
  const offC = await registry.add('builds', (p) => got.push(`c:${p}`));
  assert.deepEqual(ops.calls, ['listen tasks', 'listen builds']);
  registry.dispatch('tasks', 'one');
  registry.dispatch('other', 'ignored');
  assert.deepEqual(got, ['a:one', 'b:one']);
  await offA();
  await offA();
  registry.dispatch('tasks', 'two');
  assert.deepEqual(got, ['a:one', 'b:one', 'b:two']);
  await offB();
  await offC();
  assert.deepEqual(ops.calls, [
    'listen tasks',
    'listen builds',
    'unlisten tasks',
    'unlisten builds',
  ]);
  assert.deepEqual(registry.listening(), []);
});

test('the same function subscribed twice is two subscriptions', async () => {
  const registry = new ChannelRegistry(recordingOps(), undefined);
  let count = 0;
  const handler = (): void => void count++;
  const off = await registry.add('tasks', handler);
  await registry.add('tasks', handler);
  registry.dispatch('tasks', '');
  await off();
  registry.dispatch('tasks', '');
  assert.equal(count, 3);
});

test('a failing handler is logged and the others still run', async () => {
  const warnings: string[] = [];
  const logger = { warn: (m: string) => warnings.push(m), info: () => {}, debug: () => {} };
  const registry = new ChannelRegistry(recordingOps(), logger);
  const got: string[] = [];
  await registry.add('tasks', () => {
    throw new Error('handler bug');
  });
  await registry.add('tasks', (p) => got.push(p));
  registry.dispatch('tasks', 'x');
  assert.deepEqual(got, ['x']);
  assert.deepEqual(warnings, ['notification handler failed']);
});

test('a failed LISTEN rejects the subscription and leaves no handler behind', async () => {
  const ops = recordingOps();
  const registry = new ChannelRegistry(ops, undefined);
  let called = false;
  ops.failNext = true;
  await assert.rejects(
    registry.add('tasks', () => (called = true)),
    /listen failed/,
  );
  registry.dispatch('tasks', '');
  assert.equal(called, false);
  await registry.add('tasks', () => (called = true));
  assert.deepEqual(ops.calls, ['listen tasks']);
});
