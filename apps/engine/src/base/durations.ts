/**
 * Small time helpers of the engine: durations as people write them, and a sleep that a cancel
 * cuts short.
 * @module
 */

/** `90000` → `1m30s`; `5400000` → `1h30m`; under a second → `250ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s ? `${s}s` : ''].join('') || '0s';
}

/** Resolves true after `ms`, or false as soon as `signal` aborts (@sluice/process's `sleep`). */
export { sleep as abortableSleep } from '@sluice/process';
