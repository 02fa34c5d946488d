/**
 * A report to the control plane that must arrive: an engine's death or a failed pod ends its
 * build only through it, and nothing sends it again. A control plane that cannot be reached
 * (a replica killed, a network cut) is tried again with back-off, 90 s in all; an
 * answer that refuses the report (the build is gone or already ended: conflict, not found, bad
 * input) ends the tries, since sending it again would be refused again.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import { backoffDelay, sleep } from '@sluice/process';

/** Answers that sending the same report again would get again. */
const REFUSALS = ['conflict', 'not-found', 'input', 'authentication', 'not-allowed'];

export interface DeliveryOptions {
  /** Tries in all; 9 by default (back-off 0.5 s doubling to 30 s: 90 s). */
  attempts?: number;
  signal?: AbortSignal;
}

/** `send`'s answer once it arrives; its last error when every try failed or one was refused. */
export async function deliverReport<T>(
  send: () => Promise<T>,
  options: DeliveryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 9;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (err) {
      const refused = isSluiceError(err) && REFUSALS.includes(err.category);
      if (refused || attempt >= attempts || options.signal?.aborted === true) throw err;
      await sleep(backoffDelay(attempt, { baseMs: 500, maxMs: 30_000 }), options.signal);
    }
  }
}
