/**
 * Polling for tests that wait on what another process does (a server, an agent, the cluster's
 * controllers). `eventually` reads until a condition holds and returns the last value either
 * way, for the test to assert on; `waitFor` throws, naming what it waited for and the last
 * value. Both are deadlines, not timed assertions (STYLE.md §9).
 * @module
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface EventuallyOptions {
  /** Gives up after this long; 30 s for `eventually`, 120 s for `waitFor`. */
  timeoutMs?: number;
  /** Pause between reads; 200 ms. */
  intervalMs?: number;
}

export interface WaitForOptions extends EventuallyOptions {
  /** What is awaited, for the error on timeout: `build bld_1 to finish`. */
  what: string;
}

/** Reads until `done` holds or the time is up, then returns the last value read. */
export async function eventually<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  options: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await delay(options.intervalMs ?? 200);
  }
}

/** Reads until `done` holds; throws naming `what` and the last value when the time is up. */
export async function waitFor<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  options: WaitForOptions,
): Promise<T> {
  const value = await eventually(read, done, { timeoutMs: 120_000, ...options });
  if (!done(value))
    throw new Error(`gave up waiting for ${options.what}: ${JSON.stringify(value)}`);
  return value;
}
