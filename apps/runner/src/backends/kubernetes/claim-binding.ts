/**
 * A build's claim is made just before its dind pod. When the claim's StorageClass binds at once
 * (`Immediate`), a pod that reaches the scheduler while the claim is still unbound is refused
 * ("unbound immediate PersistentVolumeClaims") and tried again only after the scheduler's
 * back-off, one to several seconds that every build pays, warm or cold. So the claim's task ends
 * once the claim is bound: the volume provisioner needs a fraction of a second for that, and the
 * pod is then scheduled on its first try. A claim of a `WaitForFirstConsumer` class binds only
 * once its pod has a node, so it is not waited for, and neither is one whose class cannot be
 * read (an agent allowed only its namespace): the pod is made at once, as before.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import { classifyKubeError } from '@sluice/kube';
import type { KubeClient, KubeManifest } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import { sleep } from '@sluice/process';

const POLL_MS = 100;
/** After this the pod is made anyway: the scheduler and the pod monitor take it from there. */
export const CLAIM_BIND_TIMEOUT_MS = 10_000;

export interface ClaimBindingOptions {
  signal: AbortSignal;
  log: Logger;
  /** Binding modes already read, by StorageClass (a refused read is remembered as undefined). */
  modes: Map<string, Promise<string | undefined>>;
  timeoutMs?: number;
}

/** Whether the claim was waited for until bound; returns early for every other case. */
export async function waitForClaimBinding(
  kube: KubeClient,
  claim: KubeManifest,
  options: ClaimBindingOptions,
): Promise<'bound' | 'not-waited' | 'timed-out'> {
  const storageClass = (claim.spec as { storageClassName?: unknown } | undefined)?.storageClassName;
  if (claim.kind !== 'PersistentVolumeClaim' || typeof storageClass !== 'string')
    return 'not-waited';
  const mode = await modeOf(kube, storageClass, options);
  if (mode !== 'Immediate') return 'not-waited';
  const ref = { namespace: claim.metadata.namespace, name: claim.metadata.name };
  const deadline = Date.now() + (options.timeoutMs ?? CLAIM_BIND_TIMEOUT_MS);
  while (Date.now() < deadline && !options.signal.aborted) {
    const phase = await claimPhase(kube, ref, options.signal).catch(() => undefined);
    if (phase === 'Bound') return 'bound';
    await sleep(POLL_MS, options.signal);
  }
  // An aborted task (the build ended or is retried) is no claim that failed to bind.
  if (options.signal.aborted) return 'not-waited';
  options.log.info('claim not bound in time; its pod is made anyway', {
    claim: `${ref.namespace}/${ref.name}`,
    storageClass,
  });
  return 'timed-out';
}

function modeOf(
  kube: KubeClient,
  storageClass: string,
  options: ClaimBindingOptions,
): Promise<string | undefined> {
  let mode = options.modes.get(storageClass);
  if (mode === undefined) {
    mode = bindingMode(kube, storageClass, options.signal).catch((err: unknown) => {
      options.log.debug('the binding mode of a StorageClass cannot be read', {
        storageClass,
        reason: classifyKubeError(err, 'read').reason,
      });
      // Not allowed stays so; anything else (the API server away) is asked again next time.
      if (!isSluiceError(err) || err.code !== 'SLUICE_KUBE_FORBIDDEN')
        options.modes.delete(storageClass);
      return undefined;
    });
    options.modes.set(storageClass, mode);
  }
  return mode;
}

async function claimPhase(
  kube: KubeClient,
  ref: { namespace: string; name: string },
  signal: AbortSignal,
): Promise<string | undefined> {
  const path = `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/persistentvolumeclaims/${encodeURIComponent(ref.name)}`;
  const claim = await kube.request<{ status?: { phase?: string } }>(
    'read',
    { kind: 'PersistentVolumeClaim', ...ref },
    { method: 'GET', path },
    { signal },
  );
  return claim?.status?.phase;
}

/** Cluster-scoped: an agent allowed only its namespace is refused (SLUICE_KUBE_FORBIDDEN). */
async function bindingMode(
  kube: KubeClient,
  storageClass: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const path = `/apis/storage.k8s.io/v1/storageclasses/${encodeURIComponent(storageClass)}`;
  const found = await kube.request<{ volumeBindingMode?: string }>(
    'read',
    { kind: 'StorageClass', name: storageClass },
    { method: 'GET', path },
    { signal },
  );
  return found === undefined ? undefined : (found.volumeBindingMode ?? 'Immediate');
}
