/**
 * The warm pool's requests to the API server, each one call: pool pods or claims listed by
 * label, a pod or a claim read, an object created or patched (a merge patch; with a
 * `resourceVersion` in it, conditional on it), and a pod deleted only while it is as it was
 * listed (a delete precondition). A conditional write that lost answers 409, which the callers
 * take as "someone else's now".
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { KubeClient, KubePod } from '@sluice/kube';
import { podFailure } from './pod-failures.js';

/** What the pool reads of its pods. */
export interface WarmPoolPod {
  metadata: {
    name: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
  };
}

type Resource = 'pods' | 'persistentvolumeclaims' | 'secrets';
const KINDS: Readonly<Record<Resource, string>> = {
  pods: 'Pod',
  persistentvolumeclaims: 'PersistentVolumeClaim',
  secrets: 'Secret',
};
const MERGE_PATCH = 'application/merge-patch+json';

function objectsPath(namespace: string, resource: Resource, name?: string): string {
  const base = `/api/v1/namespaces/${encodeURIComponent(namespace)}/${resource}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

export function listPods(
  kube: KubeClient,
  namespace: string,
  selector: string,
  signal?: AbortSignal,
): Promise<WarmPoolPod[]> {
  return listObjects<WarmPoolPod>(kube, { namespace, resource: 'pods' }, selector, signal);
}

/**
 * The pods matching `selector` that the scheduler cannot place for want of room (Insufficient
 * cpu, Too many pods): builds waiting for the room pool pods hold.
 */
export async function podsWaitingForRoom(
  kube: KubeClient,
  namespace: string,
  selector: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const pods = await listObjects<KubePod>(kube, { namespace, resource: 'pods' }, selector, signal);
  return pods
    .filter((pod) => {
      const failure = podFailure(pod);
      return failure?.reason === 'Unschedulable' && failure.forRoom === true;
    })
    .map((pod) => pod.metadata.name);
}

/** What the pool reads of its claims: enough to find one its pod never owned. */
export interface WarmPoolClaim {
  metadata: {
    name: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
    ownerReferences?: { kind?: string; name?: string }[];
  };
}

export function listClaims(
  kube: KubeClient,
  namespace: string,
  selector: string,
  signal?: AbortSignal,
): Promise<WarmPoolClaim[]> {
  const ref = { namespace, resource: 'persistentvolumeclaims' } as const;
  return listObjects<WarmPoolClaim>(kube, ref, selector, signal);
}

async function listObjects<T>(
  kube: KubeClient,
  ref: { namespace: string; resource: Resource },
  selector: string,
  signal?: AbortSignal,
): Promise<T[]> {
  const { namespace, resource } = ref;
  const query = `?labelSelector=${encodeURIComponent(selector)}`;
  const list = await kube.request<{ items?: T[] }>(
    'list',
    { kind: KINDS[resource], namespace },
    { method: 'GET', path: `${objectsPath(namespace, resource)}${query}` },
    { signal },
  );
  return list?.items ?? [];
}

/** The pod as it is now; undefined when it is gone. */
export function readPod(
  kube: KubeClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<WarmPoolPod | undefined> {
  return readObject<WarmPoolPod>(kube, { namespace, resource: 'pods', name }, signal);
}

/** The volume a claim is bound to; undefined when it is gone or not bound yet. */
export async function claimVolume(
  kube: KubeClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const ref = { namespace, resource: 'persistentvolumeclaims', name } as const;
  const claim = await readObject<{ spec?: { volumeName?: string } }>(kube, ref, signal);
  return claim?.spec?.volumeName || undefined;
}

async function readObject<T>(
  kube: KubeClient,
  ref: { namespace: string; resource: Resource; name: string },
  signal?: AbortSignal,
): Promise<T | undefined> {
  const { namespace, resource, name } = ref;
  try {
    return await kube.request<T>(
      'read',
      { kind: KINDS[resource], namespace, name },
      { method: 'GET', path: objectsPath(namespace, resource, name) },
      { signal },
    );
  } catch (err) {
    if (isSluiceError(err) && err.code === 'SLUICE_KUBE_NOT_FOUND') return undefined;
    throw err;
  }
}

export async function patchObject(
  kube: KubeClient,
  ref: { namespace: string; resource: Resource; name: string },
  body: unknown,
  signal?: AbortSignal,
): Promise<void> {
  const { namespace, resource, name } = ref;
  await kube.request(
    'patch',
    { kind: KINDS[resource], namespace, name },
    {
      method: 'PATCH',
      path: objectsPath(namespace, resource, name),
      body: JSON.stringify(body),
      contentType: MERGE_PATCH,
    },
    { signal },
  );
}

/** The object as made; undefined when it already existed. */
export function createObject<T>(
  kube: KubeClient,
  namespace: string,
  resource: Resource,
  object: unknown,
  signal?: AbortSignal,
): Promise<T | undefined> {
  return kube.request<T>(
    'create',
    { kind: KINDS[resource], namespace },
    { method: 'POST', path: objectsPath(namespace, resource), body: JSON.stringify(object) },
    { signal },
  );
}

/**
 * Deletes a pool pod only if it is still the one listed (a delete precondition on its
 * resourceVersion): a pod a build took meanwhile is the build's, and stays. True when deleted.
 */
export async function deleteIfUnchanged(
  kube: KubeClient,
  namespace: string,
  pod: WarmPoolPod,
  signal?: AbortSignal,
): Promise<boolean> {
  const { name, resourceVersion } = pod.metadata;
  const options = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion } };
  try {
    const done = await kube.request(
      'delete',
      { kind: 'Pod', namespace, name },
      {
        method: 'DELETE',
        path: objectsPath(namespace, 'pods', name),
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

/** Running, Ready and not being deleted: a build can take it. */
export function isReady(pod: WarmPoolPod): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  if (pod.status?.phase !== 'Running') return false;
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Milliseconds since the epoch; 0 when unknown. */
export function createdAt(object: { metadata: { creationTimestamp?: string } }): number {
  const at = Date.parse(object.metadata.creationTimestamp ?? '');
  return Number.isNaN(at) ? 0 : at;
}
