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
 * ones that have been ready longest. A refill holds back where a pod starting would take the
 * node's CPU from builds starting beside it (`podsToMake`).
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
  /**
   * A PriorityClass that never preempts, given to the pods a build makes of its own (a miss):
   * otherwise a burst's builds preempt the pool's pods, taken ones too, and the builds on them
   * end in error.
   */
  buildPriorityClassName?: string;
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

/** How long after a miss the pool makes no pods (nor moves any): the burst's builds go first. */
export const QUIET_AFTER_MISS_MS = 10_000;
/**
 * How long after a take the pool makes no pods (nor moves any) while at least half of it is
 * ready: builds arriving one after another start on the ready pods without a refill's pods
 * starting beside them (on 2 cores, 1.7 s instead of 0.6 s to the first step).
 */
export const QUIET_AFTER_TAKE_MS = 10_000;
/**
 * How long a take's refill waits for the taking build to let its volume go, while another pod
 * is ready: builds shorter than this leave one pod to make (on their volume), not two.
 */
export const AWAIT_RELEASE_MS = 30_000;

/** What may hold a refill back. */
export interface RefillState {
  /** A build of the pool's shape found no ready pod within QUIET_AFTER_MISS_MS. */
  missedLately: boolean;
  /** Builds that took a pod within AWAIT_RELEASE_MS and still hold it: volumes to come. */
  awaited: number;
  /** Volumes builds let go that no pod was made on yet. */
  released: number;
  /** Ready pods the pool keeps. */
  ready: number;
  /** Builds' own pods wait for room on the nodes: the pool yields its room to them. */
  buildsWaitForRoom?: boolean;
  /** A build took a pod within QUIET_AFTER_TAKE_MS. */
  takenLately?: boolean;
  /** The size the pool is being brought to. */
  target?: number;
}

/**
 * How many of the `planned` pods to make now: none while builds miss (a burst larger than the
 * pool starts pods of its own) or wait for room the pool's pods would take, nor while builds
 * are taking pods and half the pool is still ready (`refillWaits`); while a pod is ready, not
 * those that running builds' volumes will soon take (made then on a warm volume, instead of
 * now on a new one and moved later).
 */
export function podsToMake(planned: number, state: RefillState): number {
  if (state.missedLately || state.buildsWaitForRoom === true) return 0;
  if (refillWaits(state)) return 0;
  if (state.ready === 0) return planned;
  const awaited = Math.min(state.awaited, Math.max(0, planned - state.released));
  return planned - awaited;
}

/**
 * Whether the refill (and moves) wait because builds are taking pods while at least half the
 * target (rounded down, at least one) is ready: the pods it would start take the node's CPU
 * from the builds starting; it comes once takes stop for QUIET_AFTER_TAKE_MS, or at once when
 * the pool runs below half.
 */
export function refillWaits(state: Pick<RefillState, 'takenLately' | 'target' | 'ready'>): boolean {
  if (state.takenLately !== true) return false;
  return state.ready >= Math.max(1, Math.floor((state.target ?? 0) / 2));
}
