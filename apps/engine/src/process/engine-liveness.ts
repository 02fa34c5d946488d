/**
 * The two background loops of a remote build: a heartbeat (the control plane fails a build whose
 * engine goes silent) and the control channel long-poll, which turns a `cancel` message into an
 * abort of the build and an `approve`/`deny` into the answer of a pending-approval step (through
 * an `ApprovalInbox`). Both stop when their signal aborts; errors are logged and retried, never
 * fatal, because the build itself is still worth finishing and reporting.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { ControlMessage, SluiceClient } from '@sluice/protocol';
import type { ApprovalAnswer, ApprovalGate } from '../base/approval-gate.js';
import { abortableSleep } from '../base/durations.js';

export interface LivenessOptions {
  client: SluiceClient;
  /** Stops both loops. */
  signal: AbortSignal;
  /** Called once when the control plane asks to cancel the build. */
  onCancel: () => void;
  /** Called for each approve or deny of a step. */
  onAnswer?: (step: string | undefined, answer: ApprovalAnswer) => void;
  logger: Logger;
  heartbeatMs?: number;
  /** Seconds the server may hold one control poll open. */
  controlWaitSeconds?: number;
}

/** Starts both loops; the promise settles once both stopped after `signal` aborted. */
export function startLiveness(options: LivenessOptions): Promise<void> {
  const timer = setInterval(() => void beat(options), options.heartbeatMs ?? 10_000);
  options.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  void beat(options);
  return pollControl(options);
}

async function beat(options: LivenessOptions): Promise<void> {
  try {
    await options.client.call('engineHeartbeat', { body: {}, signal: options.signal });
  } catch (err) {
    if (!options.signal.aborted)
      options.logger.warn('heartbeat failed', { error: describeError(err) });
  }
}

async function pollControl(options: LivenessOptions): Promise<void> {
  const { client, signal, logger } = options;
  let after = 0;
  while (!signal.aborted) {
    try {
      const { messages } = await client.call('engineControl', {
        query: { after, wait: options.controlWaitSeconds ?? 30 },
        signal,
      });
      for (const message of messages) {
        after = Math.max(after, message.seq);
        dispatch(options, message);
      }
    } catch (err) {
      if (signal.aborted) return;
      logger.warn('polling the control channel failed', { error: describeError(err) });
      await abortableSleep(1_000, signal);
    }
  }
}

function dispatch(options: LivenessOptions, message: ControlMessage): void {
  switch (message.kind) {
    case 'cancel':
      options.logger.info('the control plane cancelled the build');
      options.onCancel();
      return;
    case 'approve':
    case 'deny': {
      const decision = message.kind === 'approve' ? 'approved' : 'denied';
      const step = message.step ?? undefined;
      options.logger.info('an approval was answered', { step, decision });
      options.onAnswer?.(step, { decision, ...(message.by ? { by: message.by } : {}) });
      return;
    }
  }
}

/**
 * Answers that arrive on the control channel, matched to the steps that wait for them. An
 * answer may arrive before its step asks (the request is reported while the gate is set up), so
 * it is kept until asked for; an answer that names no step answers every step that waits.
 */
export class ApprovalInbox {
  readonly #answers = new Map<string, ApprovalAnswer>();
  readonly #waiting = new Map<string, (answer: ApprovalAnswer) => void>();

  deliver(step: string | undefined, answer: ApprovalAnswer): void {
    if (step === undefined) {
      for (const name of [...this.#waiting.keys()]) this.deliver(name, answer);
      return;
    }
    const resolve = this.#waiting.get(step);
    if (resolve === undefined) this.#answers.set(step, answer);
    else {
      this.#waiting.delete(step);
      resolve(answer);
    }
  }

  /** The gate `runBuild` calls for each pending-approval step. */
  readonly gate: ApprovalGate = (request, signal) => {
    const early = this.#answers.get(request.step);
    if (early !== undefined) {
      this.#answers.delete(request.step);
      return Promise.resolve(early);
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiting.delete(request.step);
        reject(signal.reason instanceof Error ? signal.reason : new Error('approval abandoned'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(request.step, (answer) => {
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      });
    });
  };
}
