import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LogLine } from '@sluice/protocol';
import { LogLimit } from './log-limit.js';

const line = (text: string, step: string | null = 'build'): LogLine => ({
  step,
  stream: 'stdout',
  line: text,
  at: '2024-01-01T00:00:00.000Z',
});

test('lines up to the limit are sent; the first past it is replaced by one notice and an event', () => {
  const limit = new LogLimit(10);
  assert.deepEqual(limit.take(line('12345')), { kind: 'send' });
  assert.deepEqual(limit.take(line('12345')), { kind: 'send' }, 'exactly at the limit');
  const reached = limit.take(line('x'));
  assert.equal(reached.kind, 'reached');
  if (reached.kind !== 'reached') return;
  assert.equal(reached.notice.stream, 'system');
  assert.equal(reached.notice.step, 'build');
  assert.match(
    reached.notice.line,
    /^The build log reached its limit of 10 bytes during step build: later lines are not stored, the steps go on/,
  );
  assert.deepEqual(reached.event, {
    type: 'log-limited',
    step: 'build',
    limitBytes: 10,
    at: '2024-01-01T00:00:00.000Z',
  });
  assert.deepEqual(limit.take(line('')), { kind: 'drop' }, 'nothing after, however small');
  assert.deepEqual(limit.take(line('y', 'test')), { kind: 'drop' });
  assert.equal(limit.dropped, 3);
});

test('bytes are counted as UTF-8, from what the server holds already; 0 is no limit', () => {
  const resumed = new LogLimit(8 * 1024, 8 * 1024 - 2);
  assert.deepEqual(resumed.take(line('é')), { kind: 'send' }, 'two bytes fit');
  assert.equal(resumed.take(line('a')).kind, 'reached');
  const mebibytes = new LogLimit(64 * 1024 * 1024, 64 * 1024 * 1024);
  const notice = mebibytes.take(line('a', null));
  assert.ok(notice.kind === 'reached' && / of 64 MiB: later lines/.test(notice.notice.line));
  const none = new LogLimit(0);
  for (let i = 0; i < 1000; i++)
    assert.deepEqual(none.take(line('x'.repeat(1000))), { kind: 'send' });
});
