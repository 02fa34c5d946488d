/**
 * A runtime's warm pool: pods made ahead of their builds (warm-pool-shape.ts: the daemon and a
 * loaded engine, on a claim of the runtime's StorageClass), waiting in the runtime's namespace
 * with the runtime's labels and `sluice.io/warm-pool=waiting`. A build takes one in a single
 * guarded write (warm-pool-writes.ts): a merge patch of the pod's labels (`waiting` → `taken`,
 * plus the build's id) that carries the resourceVersion the agent listed, so that when two
 * builds (two workers, two agents) pick the same pod, the API server accepts the first write and
 * answers the second 409 Conflict, and the loser moves on to the next pod. A taken pod carries
 * the build's id, so the build's objects (and the reaper) include it from then on.
 *
 * The pool is refilled in the background (`run`: after each take and on a timer) to the size
 * warm-pool-size.ts computes from the recent arrivals, and shrinks to its minimum when idle,
 * deleting only pods still as listed (a delete precondition on their resourceVersion), so a pod
 * a build took meanwhile stays. While builds miss (a burst larger than the pool), it makes no
 * pod until none has missed for a while: pods made then would only take the node's CPU from the
 * builds starting on pods of their own. While builds take pods one after another and half the
 * pool is still ready, it makes none either (`refillWaits`): the next builds start on ready pods
 * with no refill starting beside them.
 *
 * Its pods are kept on warm volumes. A pod made while every warm volume is held by a running
 * build gets a new, empty one; when a build ends, the pool notes the volume it let go, and its
 * next pod names that volume on its claim (`sluice.io/prefer-volume`: the provisioner gives it,
 * waiting while the build's claim goes). So a take's refill waits a while for the volume of the
 * build that took the pod (while another pod is ready): a pod made at once would get a new
 * volume and be moved when that build ends, two pods started for one build on a node that is
 * starting the build's steps. With no pod to make, the pool moves one: a pod on a
 * volume no build released is replaced by one on the released volume (a ready one only once
 * its replacement is ready). A build takes a pod made on a released volume first.
 *
 * Its pods name the pool's PriorityClass, so real workloads preempt them. The scheduler would
 * preempt them for a burst's builds too, taken pods with the builds on them among the first;
 * so the pods builds make of their own carry a PriorityClass that never preempts
 * (`buildPriorityClassName`), and while any of them waits for room, the pool yields: it makes
 * no pod and deletes its waiting ones, as preemption would. Nothing is kept here
 * that a restart would lose but the shape, which the next build teaches again: the pool is what
 * the API server lists.
 * @module
 */
import { classifyKubeError } from '@sluice/kube';
import type { KubeClient } from '@sluice/kube';
import { BUILD_LABELS, labelValue, runtimeSelector } from '@sluice/labels';
import type { Logger } from '@sluice/log';
import { sleep } from '@sluice/process';
import { claimVolume, createdAt, isReady, listPods, podsWaitingForRoom } from './warm-pool-api.js';
import type { WarmPoolPod } from './warm-pool-api.js';
import { handOverBuild } from './warm-pool-handover.js';
import { HandoverMemory, holds, SkippedObjects } from './warm-pool-memory.js';
import {
  makeMember,
  newMember,
  ORPHAN_CLAIM_AGE_MS,
  removeOrphanClaims,
  sortWaiting,
  WARM_POOL_LABEL,
  WARM_POOL_STATES,
  WARM_POOL_VOLUME_ANNOTATION,
} from './warm-pool-member.js';
import {
  learnShape,
  POOL_SECRET_KEYS,
  shapeComplete,
  shapeHash,
  WARM_POOL_SHAPE_ANNOTATION,
  withPriorityClass,
} from './warm-pool-shape.js';
import type { PoolShape } from './warm-pool-shape.js';
import {
  AWAIT_RELEASE_MS,
  planWarmPool,
  podsToMake,
  QUIET_AFTER_MISS_MS,
  QUIET_AFTER_TAKE_MS,
  recentArrivals,
  refillWaits,
  warmPoolTarget,
} from './warm-pool-size.js';
import type { PoolPodView, WarmPoolSettings, WarmPoolStats } from './warm-pool-size.js';
import { deleteIfWaiting, labelClaim, takeIfWaiting } from './warm-pool-writes.js';

const TAKEN = { label: WARM_POOL_LABEL, taken: WARM_POOL_STATES.taken };
/** How often the pool is compared with its target when nothing wakes it. */
const RECONCILE_INTERVAL_MS = 5_000;
/** Released volumes remembered for the pool's next pods, the most recent first. */
const MAX_RELEASED_VOLUMES = 16;

export interface WarmPoolOptions {
  kube: KubeClient;
  runtime: string;
  namespace: string;
  logger: Logger;
  settings: WarmPoolSettings;
  clock?: () => number;
  /** The suffix of a new pod's name; random by default. */
  idGenerator?: () => string;
}

export class WarmPool {
  readonly #options: WarmPoolOptions;
  readonly #clock: () => number;
  #shape: PoolShape = {};
  /** The builds' namespace, as their objects say (the agent's own until one has). */
  #namespace: string;
  #arrivals: number[] = [];
  #hits = 0;
  #misses = 0;
  /** When a build of the learned shape last found no ready pod. */
  #missedAt = Number.NEGATIVE_INFINITY;
  /** When a build last took a pod: the refill waits a while after (`refillWaits`). */
  #takenAt = Number.NEGATIVE_INFINITY;
  #last = { waiting: 0, starting: 0, target: 0 };
  #wake: (() => void) | undefined;
  /** Volumes builds let go, the most recent first: where the next pods go (`releaseClaim`). */
  #released: string[] = [];
  /** When each build still holding a pod took it (within AWAIT_RELEASE_MS): volumes to come. */
  #awaited: number[] = [];
  /** What builds on pool pods did not make (their claim, their dind pod), by build, in order. */
  readonly #skipped = new SkippedObjects();
  /** Members being made now, by name: their claims are no orphans yet. */
  readonly #making = new Set<string>();
  /** StorageClass binding modes read, for the wait on a new member's claim. */
  readonly #bindingModes = new Map<string, Promise<string | undefined>>();
  #orphansCheckedAt = 0;
  /** The pods this agent took until their handover, and the Secrets it made (their values). */
  readonly #memory = new HandoverMemory();

  private constructor(options: WarmPoolOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#namespace = options.namespace;
  }

  static create(options: WarmPoolOptions): WarmPool {
    return new WarmPool(options);
  }

  /** Where the pool's pods are: beside the builds' other objects (their Secret above all). */
  get namespace(): string {
    return this.#namespace;
  }

  /** `sluice.io/warm-pool=<state>` among the runtime's objects. */
  selector(state: keyof typeof WARM_POOL_STATES): string {
    return `${runtimeSelector(this.#options.runtime)},${WARM_POOL_LABEL}=${WARM_POOL_STATES[state]}`;
  }

  /** Learns from one of a build's objects what the pool's pods look like. */
  learn(manifest: Record<string, unknown>): void {
    const namespace = (manifest['metadata'] as { namespace?: unknown } | undefined)?.namespace;
    // The pool's pods go beside the builds' Secrets. When a runtime's builds move (its spec
    // names another namespace) the pool follows; the pods it left are no longer listed: they
    // carry the runtime's labels (`kubectl delete pods -l sluice.io/warm-pool` there).
    if (typeof namespace === 'string' && namespace !== this.#namespace) {
      this.#namespace = namespace;
      this.#shape = {};
    }
    const before = shapeComplete(this.#shape) ? shapeHash(this.#shape) : undefined;
    this.#shape = learnShape(this.#shape, manifest);
    const after = shapeComplete(this.#shape) ? shapeHash(this.#shape) : undefined;
    // A new shape makes every waiting pod outdated: worth a line, as each build then misses.
    if (after !== before && after !== undefined)
      this.#options.logger.info('warm pool shape learned', {
        runtime: this.#options.runtime,
        shape: after,
        from: String(manifest['kind']),
        ...(before === undefined ? {} : { previous: before }),
      });
  }

  /**
   * Claims a ready pool pod of the current shape for the build and returns its name, or
   * undefined when none could be had (a miss: the build makes its own pods). The pod the build
   * already holds, when the task comes again. Never gives one pod to two builds: each attempt
   * is conditional on the resourceVersion listed, and a pod someone else changed first is
   * skipped. A miss wakes the refill at once; a hit once its handover is done (`handOver`; or the
   * next pass, `run`), so that the refill's requests do not stand between the take and the
   * build's start.
   */
  async take(buildId: string, signal?: AbortSignal): Promise<string | undefined> {
    const pods = await this.#listBy(this.#poolSelector(), signal);
    const held = pods.find((pod) => holds(pod, buildId, TAKEN));
    if (held !== undefined) return held.metadata.name;
    this.#arrivals.push(this.#clock());
    const hash = shapeComplete(this.#shape) ? shapeHash(this.#shape) : undefined;
    const waiting = pods.filter(
      (pod) => pod.metadata.labels?.[WARM_POOL_LABEL] === WARM_POOL_STATES.waiting,
    );
    const ready = waiting.filter(
      (pod) => isReady(pod) && pod.metadata.annotations?.[WARM_POOL_SHAPE_ANNOTATION] === hash,
    );
    // Pods on a volume a build released first (a warm cache), then the longest-ready: its
    // daemon has settled.
    ready.sort((a, b) => onReleased(b) - onReleased(a) || createdAt(a) - createdAt(b));
    for (const pod of hash === undefined ? [] : ready) {
      const claimed = await takeIfWaiting(this.#place(), pod, buildId, signal);
      if (claimed === undefined) continue;
      this.#hits++;
      this.#takenAt = this.#clock();
      this.#awaited.push(this.#takenAt);
      // Off the build's path: the handover waits for it (its failure is only logged).
      const labelled = labelClaim(this.#place(), pod.metadata.name, buildId, signal).catch(
        (err: unknown) =>
          this.#options.logger.warn('a pool claim was not labelled with its build', {
            claim: pod.metadata.name,
            reason: classifyKubeError(err, 'patch').reason,
          }),
      );
      this.#memory.noteTaken(buildId, { pod: claimed, labelled });
      return pod.metadata.name;
    }
    this.#misses++;
    if (hash !== undefined) this.#missedAt = this.#clock();
    this.#options.logger.info('warm pool miss: the build makes its own pods', {
      runtime: this.#options.runtime,
      buildId,
      shape: hash ?? 'not learned yet',
      // Each waiting pod as it was listed: not ready yet, of another shape, or taken first.
      waiting: waiting.map(
        (pod) =>
          `${pod.metadata.name} ready=${String(isReady(pod))} shape=${pod.metadata.annotations?.[WARM_POOL_SHAPE_ANNOTATION] ?? ''}`,
      ),
    });
    this.#wake?.();
    return undefined;
  }

  /**
   * The pool pod the build took, if any: as this agent took it, until its handover; else found
   * by its labels (a restarted agent finds it too, and a pod deleted since is not found).
   */
  async heldBy(buildId: string, signal?: AbortSignal): Promise<WarmPoolPod | undefined> {
    const taken = this.#memory.taken(buildId);
    if (taken !== undefined) return taken.pod;
    const selector = `${this.selector('taken')},${BUILD_LABELS.buildId}=${labelValue(buildId)}`;
    const [pod] = await this.#listBy(selector, signal);
    return pod;
  }

  /**
   * Gives the build's engine variables (from its engine pod's manifest, secrets resolved) to the
   * engine waiting in `pod` (warm-pool-handover.ts).
   * @throws Error when the pod has no address or key, or its engine does not take the build.
   */
  async handOver(
    buildId: string,
    pod: WarmPoolPod,
    enginePod: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<void> {
    const { kube, logger } = this.#options;
    const namespace = this.#namespace;
    const known = (name: string) => this.#memory.secret(namespace, name);
    try {
      await handOverBuild(kube, { namespace, logger, pod, enginePod, known }, signal);
    } finally {
      // From here on the API server says what the build holds (the pod may fail, be deleted).
      await this.#memory.taken(buildId)?.labelled;
      this.#memory.forgetTaken(buildId);
      this.#wake?.();
    }
  }

  /**
   * Notes what a build's Secret holds as the agent makes it, so that its handover need not read
   * it back (the pool's own Secrets are noted as they are made).
   */
  noteSecret(manifest: Record<string, unknown>): void {
    this.#memory.noteSecret(manifest, this.#namespace);
  }

  /** The build's Secret is deleted: what it held is not kept any longer. */
  forgetSecret(ref: { namespace?: string; name: string }): void {
    this.#memory.forgetSecret(ref.namespace ?? this.#namespace, ref.name);
  }

  /** Deletes the pool pod a build holds, if any; its name, for the pod monitor's memory. */
  async release(buildId: string, signal?: AbortSignal): Promise<string | undefined> {
    const held = await this.heldBy(buildId, signal);
    this.#memory.forgetTaken(buildId);
    if (held === undefined) return undefined;
    const { kube } = this.#options;
    const namespace = this.#namespace;
    await kube.delete({ kind: 'Pod', namespace, name: held.metadata.name }, { signal });
    this.#memory.forgetSecret(namespace, held.metadata.name);
    return held.metadata.name;
  }

  /**
   * A pod a build makes of its own (its engine or dind pod, when it missed the pool or its pool
   * pod failed it), with the never-preempting PriorityClass when one is set and the pod names
   * none: it waits for room instead of preempting pool pods that builds run on.
   */
  ownPod<T extends Record<string, unknown>>(manifest: T): T {
    return withPriorityClass(manifest, this.#options.settings.buildPriorityClassName);
  }

  /** Keeps an object a build on a pool pod did not make, in case its pod fails it. */
  skipped(buildId: string, manifest: Record<string, unknown>): void {
    this.#skipped.keep(buildId, manifest);
  }

  /** The build's engine took it: what it did not make is not needed. */
  forget(buildId: string): void {
    this.#skipped.forget(buildId);
    this.#memory.forgetTaken(buildId);
  }

  /**
   * Makes what a build did not make (its claim, and unless `kind` says, its dind pod): after its
   * pool pod failed it, the build runs on pods of its own. False when nothing was kept.
   */
  async makeSkipped(buildId: string, signal?: AbortSignal, kind?: string): Promise<boolean> {
    const kept = this.#skipped.of(buildId, kind);
    for (const manifest of kept) await this.#options.kube.create(this.ownPod(manifest), { signal });
    return kept.length > 0;
  }

  /**
   * Deletes the build's claims: its pool pod's, if it holds one (the pod goes with its own task),
   * and its own (`own`, made when it missed the pool or its pool pod failed it). The volumes they
   * had are noted: the pool's next pods are made on them.
   */
  async releaseClaim(
    buildId: string,
    own: { namespace?: string; name: string },
    signal?: AbortSignal,
  ): Promise<void> {
    const held = await this.heldBy(buildId, signal);
    const claims = [
      ...(held === undefined ? [] : [{ namespace: this.#namespace, name: held.metadata.name }]),
      { namespace: own.namespace ?? this.#namespace, name: own.name },
    ];
    const { kube } = this.#options;
    if (held !== undefined) this.#awaited.shift();
    for (const { namespace, name } of claims) {
      const volume = await claimVolume(kube, namespace, name, signal);
      await kube.delete({ kind: 'PersistentVolumeClaim', namespace, name }, { signal });
      if (volume === undefined) continue;
      this.#released = [volume, ...this.#released.filter((v) => v !== volume)].slice(
        0,
        MAX_RELEASED_VOLUMES,
      );
    }
    this.#wake?.();
  }

  /**
   * Brings the pool to its target once: deletes ended and outdated pods, then the difference;
   * once a minute, claims left without their pod too (counted as removed).
   */
  async reconcile(
    signal?: AbortSignal,
  ): Promise<{ created: number; removed: number; moved: number }> {
    const now = this.#clock();
    const { settings } = this.#options;
    this.#arrivals = recentArrivals(settings, this.#arrivals, now);
    const complete = shapeComplete(this.#shape);
    const hash = complete ? shapeHash(this.#shape) : undefined;
    const target = warmPoolTarget(settings, this.#arrivals, now);
    const pods = (await this.#list('waiting', signal)).filter(
      (pod) => pod.metadata.deletionTimestamp === undefined,
    );
    // Ended and outdated pods go; one being replaced serves builds but does not count.
    const { stale, fresh, replacements, leaving, live } = sortWaiting(pods, hash);
    const views: PoolPodView[] = live.map((pod) => ({
      name: pod.metadata.name,
      ready: isReady(pod),
      createdAt: createdAt(pod),
    }));
    // Until a build has shown what the pods look like, none is made (nor shed); a refill holds
    // back while builds miss or will soon let volumes go (the excess still goes).
    const planned = complete ? planWarmPool(views, target) : { create: 0, remove: [] };
    this.#awaited = this.#awaited.filter((at) => now - at < AWAIT_RELEASE_MS);
    const ready = views.filter((v) => v.ready && !planned.remove.includes(v.name)).length;
    const missedLately = now - this.#missedAt < QUIET_AFTER_MISS_MS;
    const takenLately = now - this.#takenAt < QUIET_AFTER_TAKE_MS;
    const waitForRoom = complete ? await this.#buildsWaitingForRoom(signal) : [];
    const create = podsToMake(planned.create, {
      missedLately,
      awaited: this.#awaited.length,
      released: this.#released.length,
      ready,
      buildsWaitForRoom: waitForRoom.length > 0,
      takenLately,
      target,
    });
    // Builds wait for room the pool's pods hold: they go, as preemption would have taken them.
    const yielded = waitForRoom.length > 0 ? fresh.map((pod) => pod.metadata.name) : [];
    const plan = { create, remove: [...new Set([...planned.remove, ...yielded])] };
    if (yielded.length > 0)
      this.#options.logger.info('warm pool yields its pods: builds wait for room', {
        runtime: this.#options.runtime,
        waiting: waitForRoom.slice(0, 5),
        pods: yielded,
      });
    const doomed = new Set(plan.remove);
    const remove = [...stale, ...fresh.filter((pod) => doomed.has(pod.metadata.name))];
    let removed = 0;
    for (const pod of remove) if (await this.#delete(pod, signal)) removed++;
    // Made side by side: each may wait for its claim's binding.
    await Promise.all(
      Array.from({ length: plan.create }, () => this.#createMember(signal, this.#released.shift())),
    );
    for (const pod of yielded.length > 0 ? [] : leaving) {
      const replacement = replacements.get(pod.metadata.name);
      if (replacement !== undefined && isReady(replacement) && (await this.#delete(pod, signal)))
        removed++;
    }
    const moved =
      complete &&
      !missedLately &&
      !refillWaits({ takenLately, target, ready }) &&
      yielded.length === 0
        ? await this.#move(
            live.filter((p) => !doomed.has(p.metadata.name)),
            signal,
          )
        : 0;
    if (now - this.#orphansCheckedAt >= ORPHAN_CLAIM_AGE_MS) {
      this.#orphansCheckedAt = now;
      const { kube, runtime, logger } = this.#options;
      const scope = { kube, namespace: this.#namespace, runtime, logger };
      removed += await removeOrphanClaims(scope, { now, making: this.#making }, signal);
    }
    const kept = views.filter((v) => !doomed.has(v.name));
    const keptReady = kept.filter((v) => v.ready).length;
    this.#last = {
      waiting: keptReady,
      starting: kept.length - keptReady + plan.create,
      target,
    };
    return { created: plan.create, removed, moved };
  }

  /**
   * Moves pods on volumes no build released onto the released ones: a pod preferring the
   * volume is made; the one it replaces is deleted at once when not ready yet, and once the new
   * one is ready when it is (so a move never leaves the pool with fewer ready pods), unless a
   * build took it meanwhile. The ones not ready yet go first, then the newest. How many moves
   * were started.
   */
  async #move(pods: readonly WarmPoolPod[], signal?: AbortSignal): Promise<number> {
    const cold = pods
      .filter((pod) => onReleased(pod) === 0)
      .sort((a, b) => Number(isReady(a)) - Number(isReady(b)) || createdAt(b) - createdAt(a));
    let moved = 0;
    for (const pod of cold) {
      const volume = this.#released.shift();
      if (volume === undefined) break;
      const ready = isReady(pod);
      await this.#createMember(signal, volume, ready ? pod.metadata.name : undefined);
      if (!ready) await this.#delete(pod, signal);
      moved++;
    }
    return moved;
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

  /** The runtime's build pods (engine, dind) the scheduler cannot place for want of room. */
  #buildsWaitingForRoom(signal?: AbortSignal): Promise<string[]> {
    const selector = `${runtimeSelector(this.#options.runtime)},${BUILD_LABELS.component} in (engine,dind)`;
    return podsWaitingForRoom(this.#options.kube, this.#namespace, selector, signal);
  }

  /** Every pool pod of the runtime, waiting or taken. */
  #poolSelector(): string {
    return `${runtimeSelector(this.#options.runtime)},${WARM_POOL_LABEL}`;
  }

  #list(state: keyof typeof WARM_POOL_STATES, signal?: AbortSignal): Promise<WarmPoolPod[]> {
    return this.#listBy(this.selector(state), signal);
  }

  #listBy(selector: string, signal?: AbortSignal): Promise<WarmPoolPod[]> {
    return listPods(this.#options.kube, this.#namespace, selector, signal);
  }

  /**
   * A member: its claim, Secret and pod, in that order (warm-pool-member.ts); on `volume`, a
   * released one, when it is given (its claim prefers it), and in place of the pod `replaces`.
   */
  async #createMember(signal?: AbortSignal, volume?: string, replaces?: string): Promise<void> {
    const { kube, runtime, settings, logger } = this.#options;
    const namespace = this.#namespace;
    const { priorityClassName } = settings;
    const suffix = this.#options.idGenerator?.();
    const member = await newMember(
      { namespace, runtime, priorityClassName },
      { volume, replaces, suffix },
    );
    // Its handover needs the key: kept, so it need not read the Secret back.
    this.#memory.noteValues(namespace, member.name, {
      [POOL_SECRET_KEYS.handoverKey]: member.key,
      [POOL_SECRET_KEYS.tlsCa]: member.tls.caPem,
    });
    const scope = { kube, namespace, runtime, logger };
    await makeMember(
      scope,
      { shape: this.#shape, member },
      this.#making,
      this.#bindingModes,
      signal,
    );
  }

  /** Deletes a waiting pod unless a build took it since it was listed (warm-pool-writes.ts). */
  #delete(pod: WarmPoolPod, signal?: AbortSignal): Promise<boolean> {
    return deleteIfWaiting(this.#place(), pod, signal);
  }

  #place(): { kube: KubeClient; namespace: string } {
    return { kube: this.#options.kube, namespace: this.#namespace };
  }
}

/** 1 for a pod made on a volume a build released, else 0. */
function onReleased(pod: WarmPoolPod): number {
  return pod.metadata.annotations?.[WARM_POOL_VOLUME_ANNOTATION] === undefined ? 0 : 1;
}
