/**
 * The provisioner's view of claims and volumes: facts read from PersistentVolumeClaims and
 * PersistentVolumes, and the objects and patches it writes. A volume's bookkeeping lives in its
 * own annotations, so a new leader carries on where the last one stopped.
 * @module
 */
import type { KubeResource } from '@sluice/kube';
import {
  CACHE_ANNOTATIONS,
  labelValue,
  quantityValue,
  REUSE_ANNOTATIONS,
  RUNTIME_NAME_ANNOTATION,
  VOLUME_LABELS,
  BUILD_LABELS,
} from '@sluice/runtime-spec';
import type { ClaimFacts, VolumeFacts } from './volume-choice.js';
import { volumeZone, ZONE_LABEL } from './zones.js';
import type { NodeSelectorTerm } from './zones.js';

export const VOLUME_ANNOTATIONS = {
  provisionedBy: 'sluice.io/provisioned-by',
  created: 'sluice.io/created',
  lastUsed: 'sluice.io/last-used',
  mountCount: 'sluice.io/mount-count',
  /** The uid of the claim using the volume; cleared when that claim is gone. */
  usedBy: 'sluice.io/used-by',
  /** Why the volume is being removed (retention, a full disk); it is never chosen again. */
  retiring: 'sluice.io/retiring',
  node: 'sluice.io/node',
  /** Bytes its directory holds, as the node's volume agent last measured (`du`). */
  usedBytes: 'sluice.io/used-bytes',
  /**
   * Days a released volume is kept ("7" or "7d"), from its last claim's annotation of the same
   * name; the provisioner's `retentionDays` otherwise.
   */
  retention: 'sluice.io/volume-retention',
  /** The runtime of its last claim, by name (the claim's annotation of the same name). */
  runtimeName: RUNTIME_NAME_ANNOTATION,
  /**
   * On a delegated volume: the cluster's StorageClass that made it, given back to it when it
   * is deleted, so its driver deletes the disk (`delegate-volumes.ts`).
   */
  delegateClass: 'sluice.io/delegate-storage-class',
} as const;

const DAY_MS = 86_400_000;

/**
 * Whether a released volume has been unused longer than it may be kept: its own
 * `sluice.io/volume-retention` days, else `defaultDays`; 0 days keeps it for ever.
 */
export function expired(pv: KubeResource, now: number, defaultDays: number): boolean {
  const annotations = pv.metadata.annotations ?? {};
  const own = /^(\d+)d?$/.exec(annotations[VOLUME_ANNOTATIONS.retention] ?? '');
  const days = own === null ? defaultDays : Number(own[1]);
  const lastUsed = Date.parse(annotations[VOLUME_ANNOTATIONS.lastUsed] ?? '');
  return days > 0 && Number.isFinite(lastUsed) && now - lastUsed > days * DAY_MS;
}

/**
 * The finalizer on every volume the node agent makes: a deleted volume stays (Terminating) until
 * the agent of its node has removed its directory, so nothing deletes a volume and leaves its
 * data on the node unsaid (`runner delete` waits for it). Whoever deletes volumes with no agent
 * left to finish them drops it (`withoutFinalizer`), knowing their directories stay.
 */
export const VOLUME_FINALIZER = 'sluice.io/volume-directory';

/** A guarded patch adding `VOLUME_FINALIZER` to a volume made before it, or kept without it. */
export function withFinalizer(pv: KubeResource): Record<string, unknown> {
  return {
    metadata: {
      resourceVersion: pv.metadata.resourceVersion,
      finalizers: [...(pv.metadata.finalizers ?? []), VOLUME_FINALIZER],
    },
  };
}

export function hasVolumeFinalizer(pv: KubeResource): boolean {
  return pv.metadata.finalizers?.includes(VOLUME_FINALIZER) === true;
}

/** A guarded patch dropping `VOLUME_FINALIZER` and keeping the volume's other finalizers. */
export function withoutFinalizer(pv: KubeResource): Record<string, unknown> {
  return {
    metadata: {
      resourceVersion: pv.metadata.resourceVersion,
      finalizers: (pv.metadata.finalizers ?? []).filter((f) => f !== VOLUME_FINALIZER),
    },
  };
}

/** The label every volume of one provisioner carries, to list them. */
export const PROVISIONER_LABEL = 'sluice.io/volume-provisioner';
/**
 * On a spare volume (`spare-volumes.ts`): `pending` while the node agent makes its directory,
 * `ready` once it is there; dropped when a claim takes it.
 */
export const SPARE_LABEL = 'sluice.io/spare';

/** The StorageClass a volume belongs to: a claim of another class can never bind it. */
export function storageClassOf(pv: KubeResource): string | undefined {
  return (pv['spec'] as { storageClassName?: string } | undefined)?.storageClassName;
}

export function spareState(pv: KubeResource): 'pending' | 'ready' | undefined {
  const value = pv.metadata.labels?.[SPARE_LABEL];
  return value === 'pending' || value === 'ready' ? value : undefined;
}
/** Set on a claim by the scheduler when its pod has a node (WaitForFirstConsumer). */
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';
const BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';

/** Codefresh's default: any pipeline of the account. */
export const DEFAULT_REUSE_SELECTOR = [VOLUME_LABELS.app, BUILD_LABELS.account];

interface ClaimRef {
  namespace?: string;
  name?: string;
  uid?: string;
}

export function claimFacts(pvc: KubeResource): ClaimFacts {
  const annotations = pvc.metadata.annotations ?? {};
  const spec = pvc['spec'] as { resources?: { requests?: { storage?: string } } } | undefined;
  const node = annotations[SELECTED_NODE_ANNOTATION];
  const prefer = annotations[REUSE_ANNOTATIONS.preferVolume];
  return {
    namespace: pvc.metadata.namespace ?? '',
    name: pvc.metadata.name,
    uid: uidOf(pvc),
    labels: pvc.metadata.labels ?? {},
    selector: keyList(annotations[REUSE_ANNOTATIONS.selector]) ?? DEFAULT_REUSE_SELECTOR,
    sortOrder: keyList(annotations[REUSE_ANNOTATIONS.sortOrder]) ?? [],
    requestBytes: quantityValue(spec?.resources?.requests?.storage ?? '0') ?? 0,
    ...(node === undefined ? {} : { node }),
    ...(prefer === undefined || prefer === '' ? {} : { prefer }),
  };
}

export function claimRefOf(pv: KubeResource): ClaimRef | undefined {
  return (pv['spec'] as { claimRef?: ClaimRef } | undefined)?.claimRef;
}

/**
 * `liveClaimUids`: the uids of the claims that exist now; `endingClaimUids`, those of them being
 * deleted (their build is over; each goes once its pod has stopped).
 */
export function volumeFacts(
  pv: KubeResource,
  liveClaimUids: ReadonlySet<string>,
  endingClaimUids: ReadonlySet<string> = new Set(),
): VolumeFacts {
  const annotations = pv.metadata.annotations ?? {};
  const spec = pv['spec'] as
    | {
        capacity?: { storage?: string };
        nodeAffinity?: { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } };
      }
    | undefined;
  const ref = claimRefOf(pv);
  const node = annotations[VOLUME_ANNOTATIONS.node];
  const placement = spec?.nodeAffinity?.required?.nodeSelectorTerms;
  const zone = volumeZone(pv.metadata.labels ?? {}, placement);
  return {
    name: pv.metadata.name,
    labels: pv.metadata.labels ?? {},
    capacityBytes: quantityValue(spec?.capacity?.storage ?? '0') ?? 0,
    lastUsedMs: Date.parse(annotations[VOLUME_ANNOTATIONS.lastUsed] ?? '') || 0,
    mountCount: Number(annotations[VOLUME_ANNOTATIONS.mountCount] ?? 0) || 0,
    inUse: ref?.uid !== undefined && liveClaimUids.has(ref.uid),
    releasing: ref?.uid !== undefined && endingClaimUids.has(ref.uid),
    ...(ref?.name === undefined ? {} : { claim: ref.name }),
    spare: spareState(pv) !== undefined,
    retiring:
      annotations[VOLUME_ANNOTATIONS.retiring] !== undefined ||
      pv.metadata.deletionTimestamp !== undefined,
    ...(node === undefined ? {} : { node }),
    ...(placement === undefined ? {} : { placement }),
    ...(zone === undefined ? {} : { zone }),
  };
}

/**
 * The merge patch that promises a released volume, or a spare, to a claim: the claim's labels
 * replace the last user's (a spare's label goes), the use is counted. It carries the volume's
 * resourceVersion, so a volume changed since it was read (another claim got it first) is
 * refused with 409 instead of shared. With `resize`, the volume's size becomes the claim's
 * request (a spare's nominal size), so the controller-manager finds it large enough.
 */
export function reusePatch(
  pv: KubeResource,
  claim: KubeResource,
  facts: ClaimFacts,
  provisionerLabel: string,
  options: { now: number; resize?: boolean },
): Record<string, unknown> {
  const old = pv.metadata.labels ?? {};
  const labels: Record<string, string | null> = Object.fromEntries(
    Object.keys(old)
      .filter((key) => key !== ZONE_LABEL)
      .map((key) => [key, null]),
  );
  // A zonal volume keeps its zone label: where it is does not change with its user.
  Object.assign(labels, facts.labels, { [PROVISIONER_LABEL]: provisionerLabel });
  const count = Number(pv.metadata.annotations?.[VOLUME_ANNOTATIONS.mountCount] ?? 0) || 0;
  const now = options.now;
  const request = (claim['spec'] as { resources?: { requests?: { storage?: string } } } | undefined)
    ?.resources?.requests?.storage;
  const capacity =
    options.resize && request !== undefined ? { capacity: { storage: request } } : {};
  return {
    metadata: {
      resourceVersion: pv.metadata.resourceVersion,
      labels,
      annotations: {
        [VOLUME_ANNOTATIONS.lastUsed]: new Date(now).toISOString(),
        [VOLUME_ANNOTATIONS.mountCount]: String(count + 1),
        [VOLUME_ANNOTATIONS.usedBy]: facts.uid,
        [VOLUME_ANNOTATIONS.retention]: null,
        ...retentionOf(claim),
        [VOLUME_ANNOTATIONS.runtimeName]:
          claim.metadata.annotations?.[RUNTIME_NAME_ANNOTATION] ?? null,
        [BOUND_BY_CONTROLLER]: null,
      },
    },
    spec: { claimRef: claimRef(facts), ...capacity },
  };
}

/** Marks a volume whose claim is gone as released: its last use ends now. */
export function releasePatch(pv: KubeResource, now: number): Record<string, unknown> {
  return {
    metadata: {
      resourceVersion: pv.metadata.resourceVersion,
      annotations: {
        [VOLUME_ANNOTATIONS.lastUsed]: new Date(now).toISOString(),
        [VOLUME_ANNOTATIONS.usedBy]: null,
      },
    },
  };
}

/** Marks a volume as going: it is never chosen again. Guarded by its resourceVersion. */
export function retirePatch(pv: KubeResource, reason: string): Record<string, unknown> {
  return {
    metadata: {
      resourceVersion: pv.metadata.resourceVersion,
      annotations: { [VOLUME_ANNOTATIONS.retiring]: reason },
    },
  };
}

/** What a claim got, as `cachePatch` records it on the claim. */
export interface CacheDecision {
  outcome: 'hit' | 'miss';
  reason: string;
  /** The volume as written: reused (patched) or new. */
  volume: KubeResource;
  /** The volume's last use before this claim; absent for a new volume. */
  previousUseMs?: number;
}

/**
 * The merge patch that records on the claim what it got (`CACHE_ANNOTATIONS`), for the agent to
 * report as the build's cache record and for `kubectl describe pvc` to show.
 */
export function cachePatch(decision: CacheDecision): Record<string, unknown> {
  const annotations = decision.volume.metadata.annotations ?? {};
  const previous = decision.previousUseMs;
  return {
    metadata: {
      annotations: {
        [CACHE_ANNOTATIONS.outcome]: decision.outcome,
        [CACHE_ANNOTATIONS.reason]: decision.reason,
        [CACHE_ANNOTATIONS.volume]: decision.volume.metadata.name,
        [CACHE_ANNOTATIONS.created]: annotations[VOLUME_ANNOTATIONS.created] ?? null,
        [CACHE_ANNOTATIONS.mounts]: annotations[VOLUME_ANNOTATIONS.mountCount] ?? null,
        [CACHE_ANNOTATIONS.usedBytes]: annotations[VOLUME_ANNOTATIONS.usedBytes] ?? null,
        [CACHE_ANNOTATIONS.previousUse]:
          previous === undefined || previous === 0 ? null : new Date(previous).toISOString(),
      },
    },
  };
}

function retentionOf(claim: KubeResource): Record<string, string> {
  const days = claim.metadata.annotations?.[VOLUME_ANNOTATIONS.retention];
  return days === undefined ? {} : { [VOLUME_ANNOTATIONS.retention]: days };
}

function claimRef(facts: ClaimFacts) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    namespace: facts.namespace,
    name: facts.name,
    uid: facts.uid,
  };
}

/** The object's uid, which the API server gives every object. */
export function uidOf(object: KubeResource): string {
  const uid = object.metadata['uid'];
  return typeof uid === 'string' ? uid : '';
}

function keyList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const keys = text
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  return keys.length === 0 ? undefined : keys;
}

export { labelValue };

/** A volume of this provisioner as `sluice get volumes` lists it. */
export interface VolumeSummary {
  name: string;
  /** The runtime of the build that last had it, by name (its label value on older volumes). */
  runtime: string;
  /** The same runtime as its `sluice.io/runtime` label value. */
  runtimeLabel: string;
  /**
   * `in use` (a claim has it), `released` (free for the next matching claim), `spare` (empty,
   * for the next claim no warm volume serves) or `retiring`.
   */
  status: 'in use' | 'released' | 'spare' | 'retiring';
  /** The claim that has it, or last had it. */
  claim: string | null;
  node: string | null;
  capacity: string | null;
  mountCount: number;
  createdAt: string | null;
  lastUsedAt: string | null;
  /** Why it is being removed, when it is. */
  retiring: string | null;
  /** The reuse labels of its last claim (account, project, pipeline, branch, trigger). */
  labels: Record<string, string>;
}

export function volumeSummary(pv: KubeResource): VolumeSummary {
  const annotations = pv.metadata.annotations ?? {};
  const labels = pv.metadata.labels ?? {};
  const spec = pv['spec'] as { capacity?: { storage?: string } } | undefined;
  const ref = claimRefOf(pv);
  const retiring =
    annotations[VOLUME_ANNOTATIONS.retiring] ??
    (pv.metadata.deletionTimestamp === undefined ? null : 'being deleted');
  const reuseLabels = Object.fromEntries(
    Object.entries(labels).filter(([key]) => key !== PROVISIONER_LABEL),
  );
  return {
    name: pv.metadata.name,
    runtime: annotations[VOLUME_ANNOTATIONS.runtimeName] ?? labels[BUILD_LABELS.runtime] ?? '',
    runtimeLabel: labels[BUILD_LABELS.runtime] ?? '',
    status:
      retiring !== null
        ? 'retiring'
        : spareState(pv) !== undefined
          ? 'spare'
          : annotations[VOLUME_ANNOTATIONS.usedBy] !== undefined
            ? 'in use'
            : 'released',
    claim: ref?.name === undefined ? null : `${ref.namespace ?? ''}/${ref.name}`,
    node: annotations[VOLUME_ANNOTATIONS.node] ?? null,
    capacity: spec?.capacity?.storage ?? null,
    mountCount: Number(annotations[VOLUME_ANNOTATIONS.mountCount] ?? 0) || 0,
    createdAt: annotations[VOLUME_ANNOTATIONS.created] ?? null,
    lastUsedAt: annotations[VOLUME_ANNOTATIONS.lastUsed] ?? null,
    retiring,
    labels: reuseLabels,
  };
}
