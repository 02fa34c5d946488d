import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@sluice/log';
import { createClient } from '@sluice/protocol';
import type { ControlMessage } from '@sluice/protocol';
import type { ApprovalAnswer } from '../base/approval-gate.js';
import { ApprovalInbox, startLiveness } from './engine-liveness.js';

const request = (step: string) => ({
  step,
  title: undefined,
  timeoutMs: 60_000,
  finalState: 'denied' as const,
});

test('an answer reaches the step waiting for it, and one that came early is kept', async () => {
  const inbox = new ApprovalInbox();
  const signal = new AbortController().signal;
  const waiting = inbox.gate(request('deploy'), signal);
  inbox.deliver('release', { decision: 'denied', by: 'bob' });
  inbox.deliver('deploy', { decision: 'approved', by: 'alice' });
  assert.deepEqual(await waiting, { decision: 'approved', by: 'alice' });
  assert.deepEqual(await inbox.gate(request('release'), signal), {
    decision: 'denied',
    by: 'bob',
  });
});

test('an answer naming no step answers every waiting step; an aborted wait rejects', async () => {
  const inbox = new ApprovalInbox();
  const stop = new AbortController();
  const a = inbox.gate(request('a'), new AbortController().signal);
  const b = inbox.gate(request('b'), new AbortController().signal);
  const c = inbox.gate(request('c'), stop.signal);
  stop.abort(new Error('the build stopped'));
  await assert.rejects(c, /the build stopped/);
  inbox.deliver(undefined, { decision: 'approved' });
  assert.deepEqual(await Promise.all([a, b]), [{ decision: 'approved' }, { decision: 'approved' }]);
});

// The control channel of a loopback server: each poll after `after` gets the messages past it.
const messages: ControlMessage[] = [
  { seq: 1, kind: 'approve', step: 'deploy', by: 'alice', at: '2025-01-01T00:00:00Z' },
  { seq: 2, kind: 'deny', step: 'release', by: null, at: '2025-01-01T00:00:01Z' },
  { seq: 3, kind: 'cancel', at: '2025-01-01T00:00:02Z' },
];
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  res.setHeader('content-type', 'application/json');
  if (url.pathname === '/api/engine/v1/control') {
    const after = Number(url.searchParams.get('after'));
    const batch = messages.filter((m) => m.seq > after).slice(0, 1);
    res.end(JSON.stringify({ messages: batch }));
  } else res.writeHead(204).end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
after(() => server.close());

test('the control channel turns approve, deny and cancel into answers and an abort', async () => {
  const { port } = server.address() as AddressInfo;
  const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, token: 'engine-token' });
  const stop = new AbortController();
  const answers: [string | undefined, ApprovalAnswer][] = [];
  const liveness = startLiveness({
    client,
    signal: stop.signal,
    logger: silentLogger,
    onAnswer: (step, answer) => answers.push([step, answer]),
    onCancel: () => stop.abort(),
    controlWaitSeconds: 0,
    heartbeatMs: 60_000,
  });
  await liveness;
  assert.deepEqual(answers, [
    ['deploy', { decision: 'approved', by: 'alice' }],
    ['release', { decision: 'denied' }],
  ]);
});
