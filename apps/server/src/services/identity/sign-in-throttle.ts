/**
 * Failed password sign-ins, counted per user name and per client address over the last
 * minute: at `limit` failures of either, further attempts are refused until the oldest failure
 * is a minute old (429 with Retry-After), without checking the password, so guessing is slowed
 * to `limit` a minute per name and per address. Counted in this process: each server of several
 * keeps its own count (docs/access.md).
 * @module
 */

export interface SignInThrottleOptions {
  /** Failures allowed per key within `windowMs`. */
  limit: number;
  windowMs: number;
  clock: () => number;
}

/** Keys are never kept past this many, oldest dropped first, so a flood cannot grow memory. */
const MAX_KEYS = 10_000;

export class SignInThrottle {
  readonly #options: SignInThrottleOptions;
  readonly #failures = new Map<string, number[]>();

  constructor(options: SignInThrottleOptions) {
    this.#options = options;
  }

  /** Seconds until one more attempt is allowed for all of `keys`; 0: allowed now. */
  retryAfterSeconds(keys: readonly string[]): number {
    const now = this.#options.clock();
    let wait = 0;
    for (const key of keys) {
      const times = this.#recent(key, now);
      if (times.length < this.#options.limit) continue;
      const oldest = times[times.length - this.#options.limit] ?? now;
      wait = Math.max(wait, Math.ceil((oldest + this.#options.windowMs - now) / 1000));
    }
    return wait;
  }

  fail(keys: readonly string[]): void {
    const now = this.#options.clock();
    for (const key of keys) {
      const times = this.#recent(key, now);
      times.push(now);
      this.#failures.delete(key);
      this.#failures.set(key, times);
    }
    while (this.#failures.size > MAX_KEYS) {
      const first = this.#failures.keys().next();
      if (first.done === true) break;
      this.#failures.delete(first.value);
    }
  }

  /** A success forgets the name's failures (not the address's: it may be guessing others). */
  succeed(key: string): void {
    this.#failures.delete(key);
  }

  #recent(key: string, now: number): number[] {
    const times = (this.#failures.get(key) ?? []).filter((t) => now - t < this.#options.windowMs);
    return times;
  }
}
