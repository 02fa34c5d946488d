/**
 * The one sleep: waits `ms`, or stops waiting the moment `signal` aborts, never throwing, so a
 * retry loop or a poll can be cancelled between attempts without a try around the wait.
 * @module
 */

/** setTimeout fires at once for a delay over 2^31 − 1 ms (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Resolves true after `ms`, or false as soon as `signal` aborts (at once if it already has). */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
