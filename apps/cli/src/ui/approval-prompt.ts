/**
 * Asks on the terminal whether a pending-approval step may go on: `Approve step "deploy"? [y/N]`.
 * Anything but y or yes is no, and so is the end of input; the question goes away when the build stops waiting (its timeout,
 * or the build is stopped).
 * @module
 */
import { createInterface } from 'node:readline';
import type { ApprovalRequest } from '../commands/run/approvals.js';

export interface PromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

export function askApproval(
  request: ApprovalRequest,
  signal: AbortSignal,
  streams: PromptStreams = { input: process.stdin, output: process.stdout },
): Promise<boolean> {
  const rl = createInterface({ input: streams.input, output: streams.output, terminal: false });
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      done();
      rl.close();
    };
    const onAbort = () =>
      settle(() =>
        reject(signal.reason instanceof Error ? signal.reason : new Error('no longer waiting')),
      );
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    // The end of input (Ctrl-D) is no.
    rl.on('close', () => settle(() => resolve(false)));
    rl.question(`Approve step "${request.step}"? [y/N] `, (answer) =>
      settle(() => resolve(/^(y|yes)$/i.test(answer.trim()))),
    );
  });
}
