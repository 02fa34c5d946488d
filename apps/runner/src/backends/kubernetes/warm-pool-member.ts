/**
 * A pool member's objects, made in order: its claim first, owned by nothing yet, and its Secret,
 * owned by the claim; its pod once the claim is bound (`waitForClaimBinding`: a class that binds
 * at once), so that the scheduler places it on its first try instead of after its back-off; then
 * the pod is made the claim's owner, and all three go with it.
 *
 * An agent stopped between the claim and the pod leaves a claim no pod owns, which would hold its
 * warm volume for ever: an orphan. The pool looks for them once a minute:
 * one older than `ORPHAN_CLAIM_AGE_MS` (longer than a member takes to be made: its claim's
 * binding is waited for at most 10 s) and not being made by this agent is given to its pod when
 * the pod was made after all, else deleted, its Secret with it (the claim owns it).
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { KubeClient } from '@sluice/kube';
import {
  BUILD_LABELS,
  MANAGED_BY_SLUICE,
  REUSE_ANNOTATIONS,
  runtimeSelector,
} from '@sluice/labels';
import type { Logger } from '@sluice/log';
import { waitForClaimBinding } from './claim-binding.js';
import { createdAt, createObject, listClaims, patchObject, readPod } from './warm-pool-api.js';
import type { WarmPoolPod } from './warm-pool-api.js';
import { handoverCertificate } from './warm-pool-handover.js';
import {
  memberClaim,
  memberPod,
  memberSecret,
  ownedBy,
  WARM_POOL_SHAPE_ANNOTATION,
} from './warm-pool-shape.js';
import type { PoolMember, PoolShape } from './warm-pool-shape.js';

/** The start of every member's name (its pod's, claim's and Secret's). */
export const MEMBER_NAME_PREFIX = 'warm-pool-';
/** The label of a pool pod's state, and its values. */
export const WARM_POOL_LABEL = 'sluice.io/warm-pool';
export const WARM_POOL_STATES = { waiting: 'waiting', taken: 'taken' } as const;
/** The `sluice.io/component` of a pool pod. */
export const WARM_POOL_COMPONENT = 'warm-pool';
/** Pod annotation: the released volume the pod was made to take (its claim prefers it). */
export const WARM_POOL_VOLUME_ANNOTATION = 'sluice.io/warm-pool-volume';
/** Pod annotation: the ready pod on a volume no build released that it replaces once ready. */
export const WARM_POOL_REPLACES_ANNOTATION = 'sluice.io/warm-pool-replaces';

/** How old a claim no pod owns must be to be an orphan; also how often the pool looks. */
export const ORPHAN_CLAIM_AGE_MS = 60_000;

export interface MemberScope {
  kube: KubeClient;
  namespace: string;
  runtime: string;
  logger: Logger;
}

/**
 * A new member of the runtime's pool, waiting, with a handover key and certificate of its own:
 * on `volume`, a released one, when it is given (its claim prefers it), and in place of the
 * pod `replaces`. `suffix` ends its name (random by default).
 */
export async function newMember(
  pool: { namespace: string; runtime: string; priorityClassName?: string | undefined },
  on: { volume?: string | undefined; replaces?: string | undefined; suffix?: string | undefined },
): Promise<PoolMember> {
  const { namespace, runtime, priorityClassName } = pool;
  const { volume, replaces } = on;
  const name = `${MEMBER_NAME_PREFIX}${on.suffix ?? randomBytes(5).toString('hex')}`;
  return {
    name,
    namespace,
    runtime,
    key: randomBytes(32).toString('hex'),
    tls: await handoverCertificate(name),
    ...(priorityClassName === undefined ? {} : { priorityClassName }),
    labels: {
      [BUILD_LABELS.managedBy]: MANAGED_BY_SLUICE,
      [BUILD_LABELS.component]: WARM_POOL_COMPONENT,
      [WARM_POOL_LABEL]: WARM_POOL_STATES.waiting,
    },
    ...(volume === undefined
      ? {}
      : {
          annotations: {
            [WARM_POOL_VOLUME_ANNOTATION]: volume,
            ...(replaces === undefined ? {} : { [WARM_POOL_REPLACES_ANNOTATION]: replaces }),
          },
          claimAnnotations: { [REUSE_ANNOTATIONS.preferVolume]: volume },
        }),
  };
}

/** Makes a member's claim, Secret and pod; `making` holds its name meanwhile. */
export async function makeMember(
  scope: MemberScope,
  what: { shape: PoolShape; member: PoolMember },
  making: Set<string>,
  modes: Map<string, Promise<string | undefined>>,
  signal?: AbortSignal,
): Promise<void> {
  const { kube, namespace, logger } = scope;
  const { shape, member } = what;
  const { name } = member;
  making.add(name);
  try {
    const claim = memberClaim(shape, member);
    const made = await createObject<WarmPoolPod>(
      kube,
      namespace,
      'persistentvolumeclaims',
      claim,
      signal,
    );
    const claimUid = made?.metadata.uid;
    if (claimUid === undefined) return;
    await createObject(kube, namespace, 'secrets', memberSecret(shape, member, claimUid), signal);
    await waitForClaimBinding(kube, claim, {
      signal: signal ?? new AbortController().signal,
      log: logger,
      modes,
    });
    const pod = await createObject<WarmPoolPod>(
      kube,
      namespace,
      'pods',
      memberPod(shape, member),
      signal,
    );
    const uid = pod?.metadata.uid;
    if (uid === undefined) return;
    await giveToPod(kube, { namespace, name, uid }, signal);
  } finally {
    making.delete(name);
  }
}

function giveToPod(
  kube: KubeClient,
  pod: { namespace: string; name: string; uid: string },
  signal?: AbortSignal,
): Promise<void> {
  const { namespace, name, uid } = pod;
  const ref = { namespace, resource: 'persistentvolumeclaims', name } as const;
  return patchObject(kube, ref, { metadata: ownedBy({ kind: 'Pod', name, uid }) }, signal);
}

/** The orphans of the runtime's pool given to their pods or deleted: how many were deleted. */
export async function removeOrphanClaims(
  scope: MemberScope,
  at: { now: number; making: ReadonlySet<string> },
  signal?: AbortSignal,
): Promise<number> {
  const { kube, namespace, runtime, logger } = scope;
  const claims = await listClaims(kube, namespace, runtimeSelector(runtime), signal);
  const orphans = claims.filter(
    ({ metadata }) =>
      metadata.name.startsWith(MEMBER_NAME_PREFIX) &&
      metadata.annotations?.[WARM_POOL_SHAPE_ANNOTATION] !== undefined &&
      (metadata.ownerReferences ?? []).length === 0 &&
      metadata.deletionTimestamp === undefined &&
      !at.making.has(metadata.name) &&
      at.now - createdAt({ metadata }) >= ORPHAN_CLAIM_AGE_MS,
  );
  let deleted = 0;
  for (const { metadata } of orphans) {
    const { name } = metadata;
    const pod = await readPod(kube, namespace, name, signal);
    const uid = pod?.metadata.uid;
    if (uid !== undefined && pod?.metadata.deletionTimestamp === undefined) {
      await giveToPod(kube, { namespace, name, uid }, signal);
      continue;
    }
    await kube.delete({ kind: 'PersistentVolumeClaim', namespace, name }, { signal });
    logger.info('warm pool claim without its pod removed', { claim: `${namespace}/${name}` });
    deleted++;
  }
  return deleted;
}

/** The pool's waiting pods by what becomes of them. */
export interface WaitingPods {
  /** Ended (evicted, preempted, a daemon that crashed) or of an older shape: they go. */
  stale: WarmPoolPod[];
  fresh: WarmPoolPod[];
  /**
   * Ready pods being replaced by one on a released volume (`replacements`, by the name of the
   * pod each replaces): they still serve builds but do not count, and go once it is ready.
   */
  leaving: WarmPoolPod[];
  replacements: Map<string, WarmPoolPod>;
  /** The pods that count. */
  live: WarmPoolPod[];
}

/** Sorts the pool's waiting pods, `hash` being the shape's now (undefined: not learned). */
export function sortWaiting(pods: readonly WarmPoolPod[], hash: string | undefined): WaitingPods {
  const stale = pods.filter(
    (pod) =>
      ['Failed', 'Succeeded'].includes(pod.status?.phase ?? '') ||
      (hash !== undefined && pod.metadata.annotations?.[WARM_POOL_SHAPE_ANNOTATION] !== hash),
  );
  const fresh = pods.filter((pod) => !stale.includes(pod));
  const replacements = new Map(
    fresh.flatMap((pod) => {
      const replaced = pod.metadata.annotations?.[WARM_POOL_REPLACES_ANNOTATION];
      return replaced === undefined ? [] : [[replaced, pod] as const];
    }),
  );
  const leaving = fresh.filter((pod) => replacements.has(pod.metadata.name));
  const live = fresh.filter((pod) => !replacements.has(pod.metadata.name));
  return { stale, fresh, leaving, replacements, live };
}
