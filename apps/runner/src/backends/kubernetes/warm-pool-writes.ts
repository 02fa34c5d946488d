/**
 * The pool's two guarded writes of one of its pods: a take (`takeIfWaiting`: a merge patch of
 * the pod's labels, `waiting` → `taken` plus the build's id, carrying the resourceVersion
 * listed) and a removal (`deleteIfWaiting`: a delete with a precondition on it). When two
 * builds, two workers or two agents pick the same pod, the API server accepts the first write and
 * answers the others 409 Conflict. A 409 may also be only the kubelet writing the pod's status:
 * the pod is read again and, still waiting (and ready, for a take), written once more at its new
 * resourceVersion, a few times at most. And the label a taken pod's claim gets (`labelClaim`).
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { KubeClient } from '@sluice/kube';
import { BUILD_LABELS, labelValue } from '@sluice/labels';
import { deleteIfUnchanged, isReady, patchObject, readPod } from './warm-pool-api.js';
import type { WarmPoolPod } from './warm-pool-api.js';
import { WARM_POOL_LABEL, WARM_POOL_STATES } from './warm-pool-member.js';

/** Guarded writes of one pod tried while only its status changes under it. */
const GUARDED_WRITE_ATTEMPTS = 3;

/** Where the pool's pods are. */
export interface PoolPlace {
  kube: KubeClient;
  namespace: string;
}

/**
 * The pod as the build now holds it; undefined when another build took it first, it is gone, or
 * it is no longer ready.
 */
export async function takeIfWaiting(
  place: PoolPlace,
  pod: WarmPoolPod,
  buildId: string,
  signal?: AbortSignal,
): Promise<WarmPoolPod | undefined> {
  const { kube, namespace } = place;
  const labels = {
    [WARM_POOL_LABEL]: WARM_POOL_STATES.taken,
    [BUILD_LABELS.buildId]: labelValue(buildId),
  };
  let current: WarmPoolPod | undefined = pod;
  for (let attempt = 0; attempt < GUARDED_WRITE_ATTEMPTS && current !== undefined; attempt++) {
    const { name, resourceVersion } = current.metadata;
    if (resourceVersion === undefined) return undefined;
    const ref = { namespace, resource: 'pods', name } as const;
    try {
      await patchObject(kube, ref, { metadata: { resourceVersion, labels } }, signal);
      const metadata = { ...current.metadata, labels: { ...current.metadata.labels, ...labels } };
      return { ...current, metadata };
    } catch (err) {
      // Deleted under us (404): the next pod. Changed (409): as it is now, if still free.
      if (!isSluiceError(err) || err.code !== 'SLUICE_KUBE_CONFLICT') {
        if (isSluiceError(err) && err.code === 'SLUICE_KUBE_NOT_FOUND') return undefined;
        throw err;
      }
      current = await readPod(kube, namespace, name, signal);
      if (current === undefined || !waiting(current) || !isReady(current)) return undefined;
    }
  }
  return undefined;
}

/** True when the waiting pod was deleted; false when a build took it since it was listed. */
export async function deleteIfWaiting(
  place: PoolPlace,
  pod: WarmPoolPod,
  signal?: AbortSignal,
): Promise<boolean> {
  const { kube, namespace } = place;
  let current: WarmPoolPod | undefined = pod;
  for (let attempt = 0; attempt < GUARDED_WRITE_ATTEMPTS && current !== undefined; attempt++) {
    if (await deleteIfUnchanged(kube, namespace, current, signal)) return true;
    current = await readPod(kube, namespace, pod.metadata.name, signal);
    if (current === undefined || !waiting(current)) return false;
    if (current.metadata.deletionTimestamp !== undefined) return false;
  }
  return false;
}

/**
 * Labels a taken pod's claim with the build's id too: its cache record is the build's
 * (cache-records.ts).
 */
export function labelClaim(
  place: PoolPlace,
  name: string,
  buildId: string,
  signal?: AbortSignal,
): Promise<void> {
  const { kube, namespace } = place;
  const labels = { [BUILD_LABELS.buildId]: labelValue(buildId) };
  const ref = { namespace, resource: 'persistentvolumeclaims', name } as const;
  return patchObject(kube, ref, { metadata: { labels } }, signal);
}

function waiting(pod: WarmPoolPod): boolean {
  return pod.metadata.labels?.[WARM_POOL_LABEL] === WARM_POOL_STATES.waiting;
}
