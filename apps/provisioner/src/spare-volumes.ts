/**
 * Spare volumes: empty `local` volumes that the node agent keeps ready on its node, so a claim
 * that no warm volume can serve gets a new one at once. A `local` volume's directory must exist
 * before the kubelet mounts it (the kubelet never makes it), and only the node agent can make
 * it; so the agent makes the directory first and publishes the volume, and the provisioner's
 * answer to a new claim is a patch of an existing spare (`reusePatch`: its claim, labels and
 * size), never a wait for a node.
 *
 * A spare is made in two steps, the volume first (labelled `sluice.io/spare: pending`), then
 * its directory, then the label turns `ready`: the node agent's sweep reads the directories
 * before the volumes, so a directory it sees always has its volume in the list, and a spare the
 * agent did not finish (it restarted in between) is finished on its next refill. The
 * provisioner takes only `ready` spares.
 *
 * Its finalizer (`VOLUME_FINALIZER`) keeps a deleted volume until the node agent has removed its
 * directory.
 *
 * A spare's `claimRef` names a claim that never exists (with a uid), so the controller-manager
 * treats it as released and never binds it to a claim on its own — neither does the scheduler
 * for WaitForFirstConsumer claims — and the provisioner's reuse policy stays in charge of every
 * binding.
 * @module
 */
import type { KubeResource } from '@sluice/kube';
import {
  PROVISIONER_LABEL,
  SPARE_LABEL,
  VOLUME_ANNOTATIONS,
  VOLUME_FINALIZER,
} from './volume-objects.js';
/** The claim a spare is "released" from: a namespace no Sluice object is in. */
const SPARE_CLAIM_NAMESPACE = 'sluice-spare';
/** A spare's nominal size until a claim takes it (then the claim's request: `reusePatch`). */
const SPARE_CAPACITY = '1Gi';

export interface SpareVolume {
  name: string;
  storageClass: string;
  provisionerName: string;
  provisionerLabel: string;
  /** Its directory: `<parent directory>/<name>`. */
  path: string;
  node: string;
  /** The node's `kubernetes.io/hostname` label, which the volume's node affinity names. */
  hostname: string;
  now: number;
}

/**
 * A spare on a node: a `local` volume (its directory made by the node agent), pinned to the
 * node by a required node affinity, so the build that gets it lands where its cache will be.
 */
export function spareVolumeObject(v: SpareVolume): KubeResource {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: v.name,
      labels: { [PROVISIONER_LABEL]: v.provisionerLabel, [SPARE_LABEL]: 'pending' },
      finalizers: [VOLUME_FINALIZER],
      annotations: {
        [VOLUME_ANNOTATIONS.provisionedBy]: v.provisionerName,
        [VOLUME_ANNOTATIONS.created]: new Date(v.now).toISOString(),
        [VOLUME_ANNOTATIONS.mountCount]: '0',
        [VOLUME_ANNOTATIONS.node]: v.node,
      },
    },
    spec: {
      capacity: { storage: SPARE_CAPACITY },
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: v.storageClass,
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: SPARE_CLAIM_NAMESPACE,
        name: v.name,
        uid: `spare-${v.name}`,
      },
      local: { path: v.path },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: 'kubernetes.io/hostname', operator: 'In', values: [v.hostname] },
              ],
            },
          ],
        },
      },
    },
  };
}

/**
 * Marks a spare ready once its directory is there. Not guarded: the controller-manager writes
 * its status meanwhile, and a spare deleted meanwhile is simply not found.
 */
export function spareReadyPatch(): Record<string, unknown> {
  return { metadata: { labels: { [SPARE_LABEL]: 'ready' } } };
}
