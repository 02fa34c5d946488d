import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError, UnavailableError } from '@sluice/errors';
import { BuildOutbox } from './build-outbox.js';
import type { OutboxItem } from './build-outbox.js';

const at = '2024-01-01T00:00:00.000Z';
const line = (text: string) => ({ step: 's', stream: 'stdout' as const, line: text, at });
const fast = { attempts: 5, baseMs: 1, maxMs: 5 };

test('lines are chunked with gapless seqs and never overtaken by a later event', async () => {
  const sent: OutboxItem[] = [];
  const outbox = BuildOutbox.create({
    post: (i) => (sent.push(i), Promise.resolve()),
    maxLines: 2,
  });
  for (const text of ['a', 'b', 'c']) outbox.line(line(text));
  outbox.events([{ type: 'step-finished', step: 's', status: 'success', at }]);
  outbox.line(line('d'));
  await outbox.drain();
  assert.deepEqual(
    sent.map((i) => (i.kind === 'log' ? `${i.seq}:${i.lines.map((l) => l.line).join('')}` : 'E')),
    ['0:ab', '1:c', 'E', '2:d'],
  );
});

test('a failed post is retried with the same seq, and later chunks wait for it', async () => {
  const attempts: number[] = [];
  let failures = 2;
  const outbox = BuildOutbox.create({
    retry: fast,
    post: (item) => {
      if (item.kind === 'log') attempts.push(item.seq);
      if (item.kind === 'log' && item.seq === 0 && failures-- > 0)
        return Promise.reject(new UnavailableError('X_DOWN', 'down'));
      return Promise.resolve();
    },
  });
  outbox.line(line('a'));
  outbox.flush();
  outbox.line(line('b'));
  await outbox.drain();
  assert.deepEqual(attempts, [0, 0, 0, 1]);
});

test('a rejection that retrying cannot fix fails the drain and stops later posts', async () => {
  let posts = 0;
  const outbox = BuildOutbox.create({
    retry: fast,
    post: () => {
      posts++;
      return Promise.reject(new InputError('X_BAD', 'bad chunk'));
    },
  });
  outbox.line(line('a'));
  outbox.flush();
  outbox.line(line('b'));
  await assert.rejects(outbox.drain(), /bad chunk/);
  assert.equal(posts, 1);
});

test('options given as undefined keep the defaults: a failed post is retried, not fatal', async () => {
  // runRemoteBuild passes `retry: options.retry` and `flushMs: options.flushMs` whether or not
  // they were set; spreading them once replaced the retry policy with undefined.
  let failures = 1;
  const sent: number[] = [];
  const outbox = BuildOutbox.create({
    retry: undefined,
    flushMs: undefined,
    post: (item) => {
      if (item.kind === 'log' && failures-- > 0)
        return Promise.reject(new UnavailableError('X_DOWN', 'down'));
      if (item.kind === 'log') sent.push(item.seq);
      return Promise.resolve();
    },
  });
  outbox.line(line('a'));
  await outbox.drain();
  assert.equal(outbox.failure, undefined);
  assert.deepEqual(sent, [0]);
});
