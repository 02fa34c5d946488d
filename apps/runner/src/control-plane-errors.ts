/**
 * Failed calls to the control plane by kind, for the agent's metrics: an error category, or
 * `network` for the rest; calls aborted by their own signal are not the control plane's failures.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { SluiceClient } from '@sluice/protocol';

/** Failed calls to the control plane by kind: an error category, or `network` for the rest. */
export class ApiErrorTally {
  readonly #counts = new Map<string, number>();

  add(err: unknown): void {
    const kind = isSluiceError(err) ? err.category : 'network';
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
  }

  counts(): ReadonlyMap<string, number> {
    return this.#counts;
  }
}

/**
 * `client` with each failed call counted in `tally`, except calls their own signal aborted (a
 * shutdown, a long-poll given up): those are not the control plane's failures.
 */
export function countingErrors(client: SluiceClient, tally: ApiErrorTally): SluiceClient {
  const counted = <T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> =>
    work.catch((err: unknown) => {
      if (signal?.aborted !== true) tally.add(err);
      throw err;
    });
  return {
    call: (name, input) => counted(client.call(name, input), input?.signal),
    raw: (name, input) => counted(client.raw(name, input), input?.signal),
    withToken: (token) => countingErrors(client.withToken(token), tally),
  };
}
