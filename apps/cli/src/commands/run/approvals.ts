/**
 * How `sluice run` answers pending-approval steps: `--approve` or `--deny` answer every one;
 * otherwise a terminal is asked, step by step; with no terminal to ask and no flag, a step is
 * denied, and the output says which flag to pass.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { ApprovalGate, ApprovalRequest } from '@sluice/engine';

export type { ApprovalGate, ApprovalRequest };

export interface ApprovalFlags {
  approve?: boolean;
  deny?: boolean;
}

export interface ApprovalGateOptions {
  /** Standard input and output are a terminal. */
  interactive: boolean;
  /** Asks a person; true is approved. Only called when `interactive`. */
  ask: (request: ApprovalRequest, signal: AbortSignal) => Promise<boolean>;
}

/** Who denied a step nobody could be asked about: the engine shows it as `Denied by ...`. */
export const NO_TERMINAL = 'sluice run (no terminal to ask: pass --approve or --deny)';

export function approvalGateFor(flags: ApprovalFlags, options: ApprovalGateOptions): ApprovalGate {
  if (flags.approve && flags.deny)
    throw new InputError('SLUICE_CLI_APPROVE_AND_DENY', 'Pass --approve or --deny, not both');
  if (flags.approve) return () => Promise.resolve({ decision: 'approved', by: '--approve' });
  if (flags.deny) return () => Promise.resolve({ decision: 'denied', by: '--deny' });
  if (!options.interactive) return () => Promise.resolve({ decision: 'denied', by: NO_TERMINAL });
  // One question at a time: parallel approval steps wait their turn at the prompt.
  let queue: Promise<unknown> = Promise.resolve();
  return (request, signal) => {
    const asked = queue.then(async () => {
      const yes = await options.ask(request, signal);
      return { decision: yes ? 'approved' : 'denied', by: 'terminal' } as const;
    });
    queue = asked.catch(() => undefined);
    return asked;
  };
}
