/**
 * How many pods a runtime's warm pool should hold, and what to do to get there: pure, so the
 * sizing rules are tested without a cluster (the loop that applies them is warm-pool.ts).
 *
 * - `fixed`: `maxSize` pods while builds arrive, `minSize` once none has for `idleMs`.
 * - `adaptive`: as many pods as builds arrived in the last `windowMs` (the next minute is
 *   expected to look like the last), bounded by `minSize` and `maxSize`; `minSize` when idle.
 *
 * A pool that is not yet at its size is refilled; one above it sheds the pods still starting
 * first (they hold no warm daemon yet), then the youngest waiting ones, so the pods kept are the
 * ones that have been ready longest.
 * @module
 */

export const WARM_POOL_MODES = ['fixed', 'adaptive'] as const;
export type WarmPoolMode = (typeof WARM_POOL_MODES)[number];

export interface WarmPoolSettings {
  mode: WarmPoolMode;
  /** Pods kept when no build has arrived for `idleMs`. */
  minSize: number;
  /** Pods kept while builds arrive (`fixed`), or the most the arrival rate may ask (`adaptive`). */
  maxSize: number;
  /** The arrivals `adaptive` counts. */
  windowMs: number;
  /** After this long with no build, the pool shrinks to `minSize`. */
  idleMs: number;
  /** The PriorityClass of the pool's pods, so that real workloads preempt them. */
  priorityClassName?: string;
}

/** A minute of arrivals, and five minutes without one before the pool shrinks. */
export const WARM_POOL_DEFAULTS = {
  mode: 'fixed',
  windowMs: 60_000,
  idleMs: 300_000,
} as const;

/** What the pool counts, for metrics and `sluice runner info`. */
export interface WarmPoolStats {
  /** Pods ready for a build now, and pods still starting. */
  waiting: number;
  starting: number;
  /** The size the pool is being brought to. */
  target: number;
  /** Builds that took a pool pod, and builds that found none, since the agent started. */
  hits: number;
  misses: number;
}

/** A pod of the pool as the plan sees it. */
export interface PoolPodView {
  name: string;
  /** Ready for a build: its containers up and its pod not being deleted. */
  ready: boolean;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

export interface PoolPlan {
  /** How many pods to create. */
  create: number;
  /** The pods to delete, by name. */
  remove: string[];
}

/** The size the pool should have at `now`, given the times builds arrived (any order). */
export function warmPoolTarget(
  settings: WarmPoolSettings,
  arrivals: readonly number[],
  now: number,
): number {
  const min = Math.max(0, settings.minSize);
  const max = Math.max(min, settings.maxSize);
  const last = arrivals.reduce((latest, at) => Math.max(latest, at), Number.NEGATIVE_INFINITY);
  if (now - last >= settings.idleMs) return min;
  if (settings.mode === 'fixed') return max;
  const recent = arrivals.filter((at) => now - at < settings.windowMs).length;
  return Math.min(max, Math.max(min, recent));
}

/** The arrivals that can still change a target: those within the window or the idle time. */
export function recentArrivals(
  settings: WarmPoolSettings,
  arrivals: readonly number[],
  now: number,
): number[] {
  const keep = Math.max(settings.windowMs, settings.idleMs);
  return arrivals.filter((at) => now - at < keep);
}

/** What brings `pods` to `target` pods. */
export function planWarmPool(pods: readonly PoolPodView[], target: number): PoolPlan {
  const excess = pods.length - target;
  if (excess <= 0) return { create: target - pods.length, remove: [] };
  // Starting pods first, then the youngest ready ones.
  const order = [...pods].sort(
    (a, b) => Number(a.ready) - Number(b.ready) || b.createdAt - a.createdAt,
  );
  return { create: 0, remove: order.slice(0, excess).map((pod) => pod.name) };
}
