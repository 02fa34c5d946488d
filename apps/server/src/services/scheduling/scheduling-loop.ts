/**
 * The scheduler's safety net. The build store's writes wake a pass for their account when they
 * commit (`scheduling-wakeups.ts`), but a build committed just before a crash, or whose pass
 * failed because the database went away, would stay `pending` with nothing to wake it. So the server runs a pass over every account with a
 * pending build when it starts, then every `intervalMs`; while passes fail (the database is
 * unreachable) it retries with backoff, and the first pass that succeeds after a failure is the
 * one that runs "after the database is back".
 * @module
 */
import type { Logger } from '@sluice/log';
import type { Scheduler } from './scheduler.js';

export interface SchedulingLoopOptions {
  /** Time between passes while the database answers. */
  intervalMs: number;
  /** First retry after a failed pass; doubled up to `intervalMs`. */
  retryMs?: number;
  log: Logger;
}

export interface SchedulingLoop {
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

/** Runs `schedulePending` now, then every `intervalMs` (sooner after a failure). */
export function startSchedulingLoop(
  scheduler: Pick<Scheduler, 'schedulePending'>,
  options: SchedulingLoopOptions,
): SchedulingLoop {
  const { log, intervalMs } = options;
  const firstRetryMs = Math.min(options.retryMs ?? 1000, intervalMs);
  let retryMs = firstRetryMs;
  let failing = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const next = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(tick, delayMs);
    timer.unref();
  };
  const pass = async () => {
    try {
      const { accounts } = await scheduler.schedulePending();
      if (failing) log.info('scheduling pass ran after the database came back', { accounts });
      else if (accounts > 0) log.debug('scheduling pass ran', { accounts });
      failing = false;
      retryMs = firstRetryMs;
      next(intervalMs);
    } catch (err) {
      if (!failing) log.warn('scheduling pass failed', { error: String(err) });
      failing = true;
      next(retryMs);
      retryMs = Math.min(retryMs * 2, intervalMs);
    }
  };
  function tick() {
    running = pass().finally(() => {
      running = undefined;
    });
  }

  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
