/**
 * A pass run now and every `intervalMs`, one at a time: a tick while a pass runs is skipped, a
 * pass that fails is logged and the next tick tries again, and `stop` waits for the pass under
 * way. The cron triggers and the commit statuses run so.
 * @module
 */
import type { Logger } from '@sluice/log';

export interface PassLoopOptions {
  intervalMs: number;
  log: Logger;
}

export interface PassLoop {
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

/** Runs `pass` now and every `options.intervalMs`; `failed` is the warning a failure logs. */
export function startPassLoop(
  pass: () => Promise<unknown>,
  failed: string,
  options: PassLoopOptions,
): PassLoop {
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= pass()
      .then(() => undefined)
      .catch((err: unknown) => options.log.warn(failed, { error: String(err) }))
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
