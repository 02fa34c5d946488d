import { test } from 'node:test';
import assert from 'node:assert/strict';
import { approvalGateFor, NO_TERMINAL } from './approvals.js';
import type { ApprovalRequest } from './approvals.js';

const request = (step: string): ApprovalRequest => ({
  step,
  title: undefined,
  timeoutMs: 1000,
  finalState: 'denied',
});
const signal = new AbortController().signal;
const never = () => Promise.reject(new Error('asked'));

test('--approve and --deny answer every step without asking', async () => {
  const options = { interactive: true, ask: never };
  const approve = approvalGateFor({ approve: true }, options);
  assert.deepEqual(await approve(request('a'), signal), { decision: 'approved', by: '--approve' });
  const deny = approvalGateFor({ deny: true }, options);
  assert.deepEqual(await deny(request('a'), signal), { decision: 'denied', by: '--deny' });
  assert.throws(
    () => approvalGateFor({ approve: true, deny: true }, options),
    (err: Error & { code?: string }) => err.code === 'SLUICE_CLI_APPROVE_AND_DENY',
  );
});

test('without a terminal and without a flag a step is denied, saying which flag to pass', async () => {
  const gate = approvalGateFor({}, { interactive: false, ask: never });
  const answer = await gate(request('deploy'), signal);
  assert.deepEqual(answer, { decision: 'denied', by: NO_TERMINAL });
  assert.match(`Denied by ${NO_TERMINAL}`, /pass --approve or --deny/);
});

test('on a terminal each step is asked, one question at a time', async () => {
  const asked: string[] = [];
  let release: (() => void) | undefined;
  const gate = approvalGateFor(
    {},
    {
      interactive: true,
      ask: async (r) => {
        asked.push(r.step);
        if (r.step === 'first') await new Promise<void>((resolve) => (release = resolve));
        return r.step === 'first';
      },
    },
  );
  const first = gate(request('first'), signal);
  const second = gate(request('second'), signal);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(asked, ['first'], 'the second question waits for the first answer');
  release?.();
  assert.deepEqual(await first, { decision: 'approved', by: 'terminal' });
  assert.deepEqual(await second, { decision: 'denied', by: 'terminal' });
  assert.deepEqual(asked, ['first', 'second']);
});
