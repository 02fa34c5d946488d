/**
 * Exponential backoff: how long to wait before attempt `n + 1` after `n` failures. Every retry
 * loop of Sluice (the agent's poll and reports, the engine's posts and build fetch, the task
 * queue's retries) takes its delays from here, each with its own policy.
 * @module
 */

export interface BackoffPolicy {
  /** The wait after the first failure. */
  baseMs: number;
  /** The longest wait; omitted, the wait keeps growing. */
  maxMs?: number;
  /**
   * Spread, as a fraction: 0.2 waits between 80 % and 120 % of the delay, so clients that failed
   * together do not retry together. 0 (the default) waits exactly the delay.
   */
  jitter?: number;
}

/**
 * `baseMs × 2^(failures − 1)`, at most `maxMs`, spread by `jitter` with `random` (0 to 1,
 * `Math.random()` unless given, so tests can pin it). `failures` under 1 counts as 1.
 */
export function backoffDelay(
  failures: number,
  policy: BackoffPolicy,
  random: number = Math.random(),
): number {
  const exponent = Math.max(0, failures - 1);
  // 2^1024 is Infinity, which min() turns into maxMs: no overflow to guard against.
  const delay = Math.min(policy.maxMs ?? Infinity, policy.baseMs * 2 ** exponent);
  const jitter = policy.jitter ?? 0;
  return jitter === 0 ? delay : Math.round(delay * (1 - jitter + 2 * jitter * random));
}
