/**
 * Delegated volumes (`volumeBackend: delegate`): new volumes come from an existing StorageClass
 * of the cluster — a cloud's CSI driver (`ebs.csi.aws.com`, `pd.csi.storage.gke.io`,
 * `disk.csi.azure.com`, …) — and the provisioner keeps what builds release as its reuse pool.
 * The driver keeps the cloud credentials; the provisioner only writes Kubernetes objects.
 *
 * A claim no released volume serves gets a **helper claim** of the delegate class, named after
 * the claim's uid (so a second leader or a restart never makes two) and carrying the claim's
 * node as `volume.kubernetes.io/selected-node`, so the driver makes the disk in that node's
 * zone. Once the driver has bound it to a new volume, the provisioner **adopts** the volume in
 * one write guarded by its resourceVersion (`adoptPatch`): reclaim policy Retain (deleting the
 * helper claim must not delete the disk), the runtime's StorageClass, the claim as its
 * `claimRef`, the claim's labels, and — when the driver wrote none — a required node affinity
 * on the zone it was made for. The helper claim then goes (it is left `Lost`, its volume being
 * another claim's).
 *
 * Deletion (retention) goes through the delegate too (`deleteThroughDelegatePatch`): the volume
 * gets back its class and reclaim policy Delete, and being released, the controller-manager or
 * the driver's external provisioner deletes the disk and then the object.
 * @module
 */
import type { KubeResource } from '@sluice/kube';
import { CACHE_ANNOTATIONS } from '@sluice/runtime-spec';
import type { ClaimFacts } from './volume-choice.js';
import {
  PROVISIONER_LABEL,
  reusePatch,
  SELECTED_NODE_ANNOTATION,
  VOLUME_ANNOTATIONS,
} from './volume-objects.js';
import { volumeZone, ZONE_LABEL, zoneAffinity } from './zones.js';
import type { NodeSelectorTerm } from './zones.js';

/** On a helper claim: the uid of the claim it makes a volume for. */
export const DELEGATE_FOR_LABEL = 'sluice.io/delegate-for';

/** The helper claim's name: one per claim, whoever makes it. */
export function helperClaimName(claimUid: string): string {
  return `sluice-new-${claimUid}`;
}

interface ClaimSpec {
  accessModes?: string[];
  volumeMode?: string;
  resources?: { requests?: { storage?: string } };
}

/**
 * The helper claim for `claim`: same size, access modes and volume mode, of the delegate class,
 * on the claim's node when the scheduler picked one.
 */
export function helperClaimObject(
  claim: KubeResource,
  facts: ClaimFacts,
  o: { delegateClass: string; provisionerLabel: string; reason: string },
): KubeResource {
  const spec = (claim['spec'] ?? {}) as ClaimSpec;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: helperClaimName(facts.uid),
      namespace: facts.namespace,
      labels: { [PROVISIONER_LABEL]: o.provisionerLabel, [DELEGATE_FOR_LABEL]: facts.uid },
      annotations: {
        // Why the claim gets a new volume, for its cache record once it has it.
        [CACHE_ANNOTATIONS.reason]: o.reason,
        ...(facts.node === undefined ? {} : { [SELECTED_NODE_ANNOTATION]: facts.node }),
      },
    },
    spec: {
      accessModes: spec.accessModes ?? ['ReadWriteOnce'],
      ...(spec.volumeMode === undefined ? {} : { volumeMode: spec.volumeMode }),
      storageClassName: o.delegateClass,
      resources: { requests: { storage: spec.resources?.requests?.storage ?? '1Gi' } },
    },
  };
}

/**
 * The one guarded write that hands a volume the driver just made to the claim it was made for:
 * a volume changed since it was read is refused (409), never given twice.
 */
export function adoptPatch(
  pv: KubeResource,
  claim: KubeResource,
  facts: ClaimFacts,
  o: {
    provisionerLabel: string;
    provisionerName: string;
    storageClass: string;
    delegateClass: string;
    /** The zone of the node it was made for, when the driver says none. */
    zone?: string;
    now: number;
  },
): Record<string, unknown> {
  const base = reusePatch(pv, claim, facts, o.provisionerLabel, { now: o.now }) as {
    metadata: {
      resourceVersion?: string;
      labels: Record<string, string | null>;
      annotations: Record<string, string | null>;
    };
    spec: Record<string, unknown>;
  };
  const meta = base.metadata;
  const spec = pv['spec'] as
    { nodeAffinity?: { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } } } | undefined;
  const own = spec?.nodeAffinity?.required?.nodeSelectorTerms;
  const zone = volumeZone(pv.metadata.labels ?? {}, own) ?? o.zone;
  const affinity = own === undefined ? zoneAffinity(zone) : undefined;
  return {
    metadata: {
      ...meta,
      labels: { ...meta.labels, ...(zone === undefined ? {} : { [ZONE_LABEL]: zone }) },
      annotations: {
        ...meta.annotations,
        [VOLUME_ANNOTATIONS.provisionedBy]: o.provisionerName,
        [VOLUME_ANNOTATIONS.created]: new Date(o.now).toISOString(),
        [VOLUME_ANNOTATIONS.delegateClass]: o.delegateClass,
      },
    },
    spec: {
      ...base.spec,
      storageClassName: o.storageClass,
      persistentVolumeReclaimPolicy: 'Retain',
      ...(affinity === undefined ? {} : { nodeAffinity: affinity }),
    },
  };
}

/**
 * Retires a released delegated volume and gives it back to its driver to delete: its own class
 * again (a driver reads its deletion secrets from it) and reclaim policy Delete. Guarded: a
 * volume promised to a claim since it was read is left alone.
 */
export function deleteThroughDelegatePatch(
  pv: KubeResource,
  reason: string,
): Record<string, unknown> {
  return {
    metadata: {
      resourceVersion: pv.metadata.resourceVersion,
      annotations: { [VOLUME_ANNOTATIONS.retiring]: reason },
    },
    spec: {
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: pv.metadata.annotations?.[VOLUME_ANNOTATIONS.delegateClass] ?? null,
    },
  };
}

/** Whether the volume came from a delegate StorageClass (and goes back to it to be deleted). */
export function isDelegated(pv: KubeResource): boolean {
  return pv.metadata.annotations?.[VOLUME_ANNOTATIONS.delegateClass] !== undefined;
}
