/**
 * The rate limit in front of every Kubernetes request, as client-go's `--qps`/`--burst`: up to
 * `burst` requests go at once, then `qps` per second. Each request reserves its token when it
 * arrives (the balance may go negative) and sleeps until the token is due, so waiting requests
 * keep their order without polling. Time comes from an injected clock, so tests need no timers.
 * @module
 */
import { setTimeout as delay } from 'node:timers/promises';
import { InputError } from '@sluice/errors';

export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** Resolves after `ms`; rejects when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => delay(ms, undefined, { signal }),
};

export interface TokenBucketOptions {
  /** Tokens added per second; a positive number. */
  qps: number;
  /** Tokens held at most (requests that may go at once); at least 1. */
  burst: number;
  clock?: Clock;
}

export interface TokenBucketStats {
  /** Tokens handed out (requests let through, including those that waited). */
  taken: number;
  /** Requests that had to wait for their token. */
  throttled: number;
}

export interface TokenBucket {
  /** Waits for a token; rejects (and gives the token back) when `signal` aborts. */
  take(signal?: AbortSignal): Promise<void>;
  stats(): TokenBucketStats;
}

/** @throws InputError `SLUICE_KUBE_CONFIG_INVALID` when qps or burst is not usable. */
export function createTokenBucket(options: TokenBucketOptions): TokenBucket {
  const { qps, burst } = options;
  if (!Number.isFinite(qps) || qps <= 0) {
    throw new InputError(
      'SLUICE_KUBE_CONFIG_INVALID',
      `Kubernetes client QPS ${qps} is not a positive number`,
      {
        hint: 'Set the QPS to a number above 0, e.g. 50',
      },
    );
  }
  if (!Number.isInteger(burst) || burst < 1) {
    throw new InputError(
      'SLUICE_KUBE_CONFIG_INVALID',
      `Kubernetes client burst ${burst} is not a whole number of at least 1`,
      {
        hint: 'Set the burst to a whole number of at least 1, e.g. 100',
      },
    );
  }
  const clock = options.clock ?? systemClock;
  let tokens = burst;
  let last = clock.now();
  const stats: TokenBucketStats = { taken: 0, throttled: 0 };

  function refill(): void {
    const now = clock.now();
    tokens = Math.min(burst, tokens + (Math.max(0, now - last) * qps) / 1000);
    last = now;
  }

  return {
    async take(signal) {
      signal?.throwIfAborted();
      refill();
      tokens -= 1;
      stats.taken += 1;
      if (tokens >= 0) return;
      stats.throttled += 1;
      try {
        await clock.sleep((-tokens * 1000) / qps, signal);
      } catch (err) {
        tokens += 1;
        stats.taken -= 1;
        throw err;
      }
    },
    stats: () => ({ ...stats }),
  };
}
