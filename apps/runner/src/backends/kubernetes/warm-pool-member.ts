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
import type { KubeClient } from '@sluice/kube';
import { runtimeSelector } from '@sluice/labels';
import type { Logger } from '@sluice/log';
import { waitForClaimBinding } from './claim-binding.js';
import { createdAt, createObject, listClaims, patchObject, readPod } from './warm-pool-api.js';
import type { WarmPoolPod } from './warm-pool-api.js';
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

/** How old a claim no pod owns must be to be an orphan; also how often the pool looks. */
export const ORPHAN_CLAIM_AGE_MS = 60_000;

export interface MemberScope {
  kube: KubeClient;
  namespace: string;
  runtime: string;
  logger: Logger;
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
