import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConflictError, InputError, UnavailableError } from '@sluice/errors';
import { BuildOutbox, LOG_SEQUENCE_GAP } from './build-outbox.js';
import type { BuildOutboxOptions, OutboxItem } from './build-outbox.js';
import { LogSpool } from './log-spool.js';

const at = '2024-01-01T00:00:00.000Z';
const line = (text: string) => ({ step: 's', stream: 'stdout' as const, line: text, at });
const fast = { attempts: Infinity, baseMs: 1, maxMs: 5 };
const root = await mkdtemp(join(tmpdir(), 'sluice-outbox-'));
const opened: LogSpool[] = [];
after(async () => {
  for (const spool of opened) await spool.close();
  await rm(root, { recursive: true, force: true });
});

async function outboxWith(options: Omit<BuildOutboxOptions, 'spool'>, spool?: LogSpool) {
  spool ??= await LogSpool.open(join(root, `spool-${opened.length}`));
  opened.push(spool);
  return { outbox: BuildOutbox.create({ ...options, spool }), spool };
}

const down = () => Promise.reject(new UnavailableError('SLUICE_API_UNREACHABLE', 'down'));
const gap = (expectedSeq: number) =>
  new ConflictError(LOG_SEQUENCE_GAP, 'gap', {
    details: { status: 409, details: { expectedSeq } },
  });

function describeSent(sent: OutboxItem[]): string[] {
  return sent.map((i) =>
    i.kind === 'log' ? `${i.seq}:${i.lines.map((l) => l.line).join('')}` : 'E',
  );
}

test('lines are chunked with gapless seqs and never overtaken by a later event', async () => {
  const sent: OutboxItem[] = [];
  const { outbox } = await outboxWith({
    post: (i) => (sent.push(i), Promise.resolve()),
    maxLines: 2,
  });
  for (const text of ['a', 'b', 'c']) outbox.line(line(text));
  outbox.events([{ type: 'step-finished', step: 's', status: 'success', at }]);
  outbox.line(line('d'));
  await outbox.drain();
  assert.deepEqual(describeSent(sent), ['0:ab', '1:c', 'E', '2:d']);
});

test('a control plane that is down for many attempts gets every chunk once it is back, in order', async () => {
  let upAfter = 40;
  const sent: OutboxItem[] = [];
  const { outbox, spool } = await outboxWith({
    retry: fast,
    maxLines: 1,
    post: (item) => (upAfter-- > 0 ? down() : (sent.push(item), Promise.resolve())),
  });
  // The build goes on while nothing gets through: line() and events() never wait.
  for (let i = 0; i < 5; i++) outbox.line(line(String(i)));
  outbox.events([{ type: 'step-finished', step: 's', status: 'success', at }]);
  outbox.line(line('5'));
  assert.ok(spool.unacknowledged >= 5, spool.describe());
  await outbox.drain();
  assert.deepEqual(describeSent(sent), ['0:0', '1:1', '2:2', '3:3', '4:4', 'E', '5:5']);
  assert.equal(spool.unacknowledged, 0);
});

test('a gap answer resends from the chunk the control plane expects', async () => {
  const sent: number[] = [];
  let lost = true;
  const { outbox } = await outboxWith({
    retry: fast,
    maxLines: 1,
    post: (item) => {
      if (item.kind !== 'log') return Promise.resolve();
      // The server lost chunk 1 after acknowledging it (a restored database): it asks for it.
      if (item.seq === 2 && lost) {
        lost = false;
        return Promise.reject(gap(1));
      }
      sent.push(item.seq);
      return Promise.resolve();
    },
  });
  for (const text of ['a', 'b', 'c', 'd']) outbox.line(line(text));
  await outbox.drain();
  assert.deepEqual(sent, [0, 1, 1, 2, 3]);
});

test('a gap the spool can no longer fill stops sending with the reason', async () => {
  let posts = 0;
  const { outbox } = await outboxWith(
    {
      retry: fast,
      maxLines: 1,
      post: (item) => (
        posts++,
        item.kind === 'log' && item.seq === 5 ? Promise.reject(gap(2)) : Promise.resolve()
      ),
    },
    await LogSpool.open(join(root, 'spool-gap'), { startSeq: 5 }),
  );
  outbox.line(line('a'));
  outbox.line(line('b'));
  // Chunks 2–4 came from an engine whose spool is gone: nothing here can fill them.
  await assert.rejects(outbox.drain(), /gap/);
  assert.equal(posts, 1);
});

test('a rejection that retrying cannot fix fails the drain and stops later posts', async () => {
  let posts = 0;
  const { outbox } = await outboxWith({
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

test('a drain bound that passes stops sending and names the chunks not stored', async () => {
  let posts = 0;
  const { outbox, spool } = await outboxWith({
    retry: fast,
    post: () => (posts++, down()),
  });
  outbox.line(line('a'));
  await assert.rejects(outbox.drain({ timeoutMs: 50 }), (err: Error) => {
    assert.match(err.message, /did not acknowledge the build log within 50ms: 1 chunks/);
    assert.ok(err.message.includes(spool.dir), err.message);
    return true;
  });
  const stoppedAt = posts;
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(posts, stoppedAt, 'posts went on after the bound');
});

test('options given as undefined keep the defaults: a failed post is retried, not fatal', async () => {
  // runRemoteBuild passes `retry: options.retry` and `flushMs: options.flushMs` whether or not
  // they were set; spreading them once replaced the retry policy with undefined.
  let failures = 1;
  const sent: number[] = [];
  const { outbox } = await outboxWith({
    retry: undefined,
    flushMs: undefined,
    post: (item) => {
      if (item.kind === 'log' && failures-- > 0) return down();
      if (item.kind === 'log') sent.push(item.seq);
      return Promise.resolve();
    },
  });
  outbox.line(line('a'));
  await outbox.drain();
  assert.equal(outbox.failure, undefined);
  assert.deepEqual(sent, [0]);
});

test('chunks an earlier engine process spooled are sent first, and numbering goes on after them', async () => {
  const dir = join(root, 'spool-resume');
  const first = await LogSpool.open(dir);
  first.append([line('a')]);
  first.append([line('b')]);
  await first.close(); // The engine dies: nothing was acknowledged.
  const sent: OutboxItem[] = [];
  const { outbox } = await outboxWith(
    { post: (i) => (sent.push(i), Promise.resolve()) },
    await LogSpool.open(dir),
  );
  outbox.line(line('c'));
  await outbox.drain();
  assert.deepEqual(describeSent(sent), ['0:a', '1:b', '2:c']);
});

test('a line longer than a request may carry is sent in pieces, none lost', async () => {
  const sent: OutboxItem[] = [];
  const { outbox } = await outboxWith({ post: (i) => (sent.push(i), Promise.resolve()) });
  const long = 'x'.repeat(1024 * 1024 * 2 + 10);
  outbox.line(line(long));
  await outbox.drain();
  const pieces = sent.flatMap((i) => (i.kind === 'log' ? i.lines.map((l) => l.line) : []));
  assert.equal(pieces.length, 3);
  assert.equal(pieces.join(''), long);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a quiet line goes out within flushMs; lines printed during a post go out as one chunk after it', async () => {
  const sent: OutboxItem[] = [];
  let answer = () => {};
  const { outbox } = await outboxWith({
    flushMs: 5,
    post: (i) => {
      sent.push(i);
      return i.kind === 'log' && i.seq === 0
        ? new Promise<void>((resolve) => (answer = resolve))
        : Promise.resolve();
    },
  });
  outbox.line(line('a'));
  await sleep(50);
  assert.deepEqual(describeSent(sent), ['0:a'], 'the quiet line was not sent within flushMs');
  // Each line more than flushMs after the one before, all while chunk 0 is being posted.
  for (const text of ['b', 'c', 'd']) {
    outbox.line(line(text));
    await sleep(30);
  }
  assert.deepEqual(describeSent(sent), ['0:a'], 'a chunk was posted before the first was answered');
  answer();
  await outbox.drain();
  assert.deepEqual(describeSent(sent), ['0:a', '1:bcd']);
});

test('lines held behind a post that does not end are spooled after maxHoldMs', async () => {
  const { outbox, spool } = await outboxWith({
    flushMs: 5,
    maxHoldMs: 300,
    post: (_item, signal) =>
      new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(new Error('stopped'))),
      ),
  });
  outbox.line(line('a'));
  await sleep(30);
  outbox.line(line('b'));
  await sleep(100);
  assert.equal(spool.unacknowledged, 1, 'the line was not held while a post was under way');
  await sleep(600);
  assert.equal(spool.unacknowledged, 2, 'the held line was not spooled after maxHoldMs');
  outbox.stop();
});
