/**
 * A runtime's warm pool: pods made from one template ahead of their builds, waiting in the
 * runtime's namespace with the runtime's labels and `sluice.io/warm-pool=waiting`. A build takes
 * one in a single guarded write: a merge patch of the pod's labels (`waiting` → `taken`, plus
 * the build's id) that carries the resourceVersion the agent listed, so that when two builds
 * (two workers, two agents) pick the same pod, the API server accepts the first write and
 * answers the second 409 Conflict, and the loser moves on to the next pod. A taken pod carries
 * the build's id, so the build's objects (and the reaper) include it from then on.
 *
 * The pool is refilled in the background (`reconcile`, after each take and on a timer) to the
 * size warm-pool-size.ts computes from the recent arrivals, and shrinks to its minimum when
 * idle. Its pods name the pool's PriorityClass, so real workloads preempt them. Nothing is kept
 * here that a restart would lose: the pool is what the API server lists.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { isSluiceError } from '@sluice/errors';
import { classifyKubeError } from '@sluice/kube';
import type { KubeClient } from '@sluice/kube';
import { BUILD_LABELS, labelValue, MANAGED_BY_SLUICE, runtimeSelector } from '@sluice/labels';
import type { Logger } from '@sluice/log';
import { sleep } from '@sluice/process';
import { planWarmPool, recentArrivals, warmPoolTarget } from './warm-pool-size.js';
import type { PoolPodView, WarmPoolSettings } from './warm-pool-size.js';

/** The label of a pool pod's state, and its values. */
export const WARM_POOL_LABEL = 'sluice.io/warm-pool';
export const WARM_POOL_STATES = { waiting: 'waiting', taken: 'taken' } as const;
/** The `sluice.io/component` of a pool pod. */
export const WARM_POOL_COMPONENT = 'warm-pool';

/** How often the pool is compared with its target when nothing wakes it. */
const RECONCILE_INTERVAL_MS = 5_000;
const MERGE_PATCH = 'application/merge-patch+json';

export interface WarmPoolOptions {
  kube: KubeClient;
  runtime: string;
  namespace: string;
  logger: Logger;
  settings: WarmPoolSettings;
  /** The pod every pool member is made from; its name and the pool's labels are set here. */
  template: PodTemplate;
  clock?: () => number;
  /** The suffix of a new pod's name; random by default. */
  idGenerator?: () => string;
}

/** What a pool pod is made from: a pod manifest without its name. */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

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

interface ListedPod {
  metadata: {
    name: string;
    resourceVersion?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
  };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

export class WarmPool {
  readonly #options: WarmPoolOptions;
  readonly #clock: () => number;
  #arrivals: number[] = [];
  #hits = 0;
  #misses = 0;
  #last: { waiting: number; starting: number; target: number } = {
    waiting: 0,
    starting: 0,
    target: 0,
  };
  #wake: (() => void) | undefined;

  private constructor(options: WarmPoolOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
  }

  static create(options: WarmPoolOptions): WarmPool {
    return new WarmPool(options);
  }

  /** `sluice.io/warm-pool=<state>` among the runtime's objects. */
  selector(state: keyof typeof WARM_POOL_STATES): string {
    return `${runtimeSelector(this.#options.runtime)},${WARM_POOL_LABEL}=${WARM_POOL_STATES[state]}`;
  }

  /**
   * Claims a ready pool pod for the build and returns its name, or undefined when none could
   * be had (a miss: the build starts its own pods). Never gives one pod to two builds: each
   * attempt is conditional on the resourceVersion listed, and a pod someone else changed first
   * is skipped. Wakes the refill either way.
   */
  async take(buildId: string, signal?: AbortSignal): Promise<string | undefined> {
    this.#arrivals.push(this.#clock());
    try {
      const ready = (await this.#list('waiting', signal)).filter(isReady);
      // The longest-ready first: its daemon has settled.
      ready.sort((a, b) => createdAt(a) - createdAt(b));
      for (const pod of ready) {
        if (await this.#claim(pod, buildId, signal)) {
          this.#hits++;
          return pod.metadata.name;
        }
      }
      this.#misses++;
      return undefined;
    } finally {
      this.#wake?.();
    }
  }

  /** Brings the pool to its target once: deletes ended pods, creates or deletes the difference. */
  async reconcile(signal?: AbortSignal): Promise<{ created: number; removed: number }> {
    const now = this.#clock();
    const { settings } = this.#options;
    this.#arrivals = recentArrivals(settings, this.#arrivals, now);
    const target = warmPoolTarget(settings, this.#arrivals, now);
    const pods = (await this.#list('waiting', signal)).filter(
      (pod) => pod.metadata.deletionTimestamp === undefined,
    );
    // A pool pod that ended (evicted, preempted, its daemon crashed) holds nothing: it goes.
    const ended = pods.filter((pod) => ['Failed', 'Succeeded'].includes(pod.status?.phase ?? ''));
    const live = pods.filter((pod) => !ended.includes(pod));
    const views: PoolPodView[] = live.map((pod) => ({
      name: pod.metadata.name,
      ready: isReady(pod),
      createdAt: createdAt(pod),
    }));
    const plan = planWarmPool(views, target);
    const doomed = new Set(plan.remove);
    const remove = [...ended, ...live.filter((pod) => doomed.has(pod.metadata.name))];
    let removed = 0;
    for (const pod of remove) if (await this.#delete(pod, signal)) removed++;
    for (let i = 0; i < plan.create; i++) await this.#createPod(signal);
    const ready = views.filter((v) => v.ready && !plan.remove.includes(v.name)).length;
    const kept = views.length - plan.remove.length;
    this.#last = { waiting: ready, starting: kept - ready + plan.create, target };
    return { created: plan.create, removed };
  }

  /** Reconciles every few seconds and at once after a take, until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.#options.logger;
    while (!signal.aborted) {
      await this.reconcile(signal).catch((err: unknown) => {
        if (!signal.aborted)
          log.warn('warm pool not reconciled', {
            runtime: this.#options.runtime,
            reason: classifyKubeError(err, 'list').reason,
          });
      });
      const woken = new Promise<void>((resolve) => (this.#wake = resolve));
      await Promise.race([sleep(RECONCILE_INTERVAL_MS, signal), woken]);
      this.#wake = undefined;
    }
  }

  stats(): WarmPoolStats {
    return { ...this.#last, hits: this.#hits, misses: this.#misses };
  }

  async #list(state: keyof typeof WARM_POOL_STATES, signal?: AbortSignal): Promise<ListedPod[]> {
    const { kube, namespace } = this.#options;
    const query = `?labelSelector=${encodeURIComponent(this.selector(state))}`;
    const list = await kube.request<{ items?: ListedPod[] }>(
      'list',
      { kind: 'Pod', namespace },
      { method: 'GET', path: `${podsPath(namespace)}${query}` },
      { signal },
    );
    return list?.items ?? [];
  }

  /** The guarded write: true when this build now holds the pod. */
  async #claim(pod: ListedPod, buildId: string, signal?: AbortSignal): Promise<boolean> {
    const { kube, namespace } = this.#options;
    const { name, resourceVersion } = pod.metadata;
    if (resourceVersion === undefined) return false;
    const patch = {
      metadata: {
        resourceVersion,
        labels: {
          [WARM_POOL_LABEL]: WARM_POOL_STATES.taken,
          [BUILD_LABELS.buildId]: labelValue(buildId),
        },
      },
    };
    try {
      await kube.request(
        'patch',
        { kind: 'Pod', namespace, name },
        {
          method: 'PATCH',
          path: `${podsPath(namespace)}/${encodeURIComponent(name)}`,
          body: JSON.stringify(patch),
          contentType: MERGE_PATCH,
        },
        { signal },
      );
      return true;
    } catch (err) {
      // Another build took it first (409), or it was deleted under us (404): try the next.
      if (isSluiceError(err) && ['SLUICE_KUBE_CONFLICT', 'SLUICE_KUBE_NOT_FOUND'].includes(err.code))
        return false;
      throw err;
    }
  }

  async #createPod(signal?: AbortSignal): Promise<void> {
    const { kube, namespace, template, runtime, settings } = this.#options;
    const suffix = this.#options.idGenerator?.() ?? randomBytes(5).toString('hex');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...template.metadata,
        name: `warm-pool-${suffix}`,
        namespace,
        labels: {
          ...template.metadata?.labels,
          [BUILD_LABELS.managedBy]: MANAGED_BY_SLUICE,
          [BUILD_LABELS.runtime]: labelValue(runtime),
          [BUILD_LABELS.component]: WARM_POOL_COMPONENT,
          [WARM_POOL_LABEL]: WARM_POOL_STATES.waiting,
        },
      },
      spec: {
        ...template.spec,
        ...(settings.priorityClassName === undefined
          ? {}
          : { priorityClassName: settings.priorityClassName }),
      },
    };
    await kube.request(
      'create',
      { kind: 'Pod', namespace, name: pod.metadata.name },
      { method: 'POST', path: podsPath(namespace), body: JSON.stringify(pod) },
      { signal },
    );
  }

  /**
   * Deletes a pool pod only if it is still the one listed (a delete precondition on its
   * resourceVersion): a pod a build took meanwhile is the build's, and stays. True when deleted.
   */
  async #delete(pod: ListedPod, signal?: AbortSignal): Promise<boolean> {
    const { kube, namespace } = this.#options;
    const { name, resourceVersion } = pod.metadata;
    const options = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion } };
    try {
      const done = await kube.request(
        'delete',
        { kind: 'Pod', namespace, name },
        {
          method: 'DELETE',
          path: `${podsPath(namespace)}/${encodeURIComponent(name)}`,
          body: JSON.stringify(options),
        },
        { signal },
      );
      return done !== undefined;
    } catch (err) {
      if (isSluiceError(err) && err.code === 'SLUICE_KUBE_CONFLICT') return false;
      throw err;
    }
  }
}

function podsPath(namespace: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
}

function isReady(pod: ListedPod): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  if (pod.status?.phase !== 'Running') return false;
  return (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function createdAt(pod: ListedPod): number {
  const at = Date.parse(pod.metadata.creationTimestamp ?? '');
  return Number.isNaN(at) ? 0 : at;
}
