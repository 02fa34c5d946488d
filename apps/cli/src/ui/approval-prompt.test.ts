import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { askApproval } from './approval-prompt.js';

const request = {
  step: 'deploy',
  title: undefined,
  timeoutMs: 1000,
  finalState: 'denied' as const,
};

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  return { input, output, shown: () => shown };
}

test('the question names the step; y and yes approve, anything else denies', async () => {
  for (const [typed, expected] of [
    ['y\n', true],
    ['YES\n', true],
    ['n\n', false],
    ['\n', false],
    ['sure\n', false],
  ] as const) {
    const s = streams();
    const answer = askApproval(request, new AbortController().signal, s);
    s.input.write(typed);
    assert.equal(await answer, expected, JSON.stringify(typed));
    assert.equal(s.shown(), 'Approve step "deploy"? [y/N] ');
  }
});

test('the end of input is no, and a build that stops waiting takes the question away', async () => {
  const s = streams();
  const answer = askApproval(request, new AbortController().signal, s);
  s.input.end();
  assert.equal(await answer, false);

  const stop = new AbortController();
  const pending = askApproval(request, stop.signal, streams());
  stop.abort(new Error('timed out'));
  await assert.rejects(pending, /timed out/);
});
