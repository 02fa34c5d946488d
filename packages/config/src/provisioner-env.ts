/**
 * `sluice provisioner`'s environment: the volume provisioner of one runtime's StorageClass
 * (`apps/provisioner`). Each variable has a flag of the same meaning.
 * @module
 */
import { numberVar, requiredTextVar, textVar } from './variables.js';
import type { EnvValues } from './parse-env.js';

export const PROVISIONER_DEFAULTS = {
  volumeParentDir: '/var/lib/sluice/volumes',
  resyncSeconds: 30,
  leaseSeconds: 15,
  retentionDays: 4,
  diskThreshold: 0.8,
  inodeThreshold: 0.8,
  volumeAgentIntervalSeconds: 60,
  volumeSpares: 2,
  volumeAgentMetricsPort: 9102,
} as const;

const parentDir = () =>
  textVar({
    description: 'The directory on every node under which the volumes are',
    flag: 'volume-parent-dir',
    default: PROVISIONER_DEFAULTS.volumeParentDir,
  });

const provisionerName = () =>
  requiredTextVar({
    description: "The `provisioner` of the runtime's StorageClass, which this provisioner serves",
    flag: 'provisioner-name',
  });

const kubeconfig = () =>
  textVar({
    description: "A kubeconfig file; without one, the pod's own service account",
    flag: 'kubeconfig',
  });

const storageClass = () =>
  requiredTextVar({
    description: 'The StorageClass whose claims the provisioner answers',
    flag: 'storage-class',
  });

export const provisionerEnv = {
  SLUICE_PROVISIONER_NAME: provisionerName(),
  SLUICE_PROVISIONER_STORAGE_CLASS: storageClass(),
  SLUICE_PROVISIONER_NAMESPACE: requiredTextVar({
    description: "The runtime's namespace: where the claims and the leader-election Lease are",
    flag: 'namespace',
  }),
  SLUICE_PROVISIONER_IDENTITY: textVar({
    description: "This replica's name in the leader election (the chart gives the pod's name)",
    flag: 'identity',
    defaultText: 'the host name',
  }),
  SLUICE_PROVISIONER_KUBECONFIG: kubeconfig(),
  SLUICE_PROVISIONER_RESYNC_SECONDS: numberVar({
    description:
      'Seconds between looks at the claims and volumes when nothing changed (watches answer a new claim at once)',
    flag: 'resync-seconds',
    min: 0.1,
    max: 3600,
    fraction: true,
    default: PROVISIONER_DEFAULTS.resyncSeconds,
  }),
  SLUICE_PROVISIONER_LEASE_SECONDS: numberVar({
    description: "How long a leader's lease lasts without renewal before a standby takes over",
    flag: 'lease-seconds',
    min: 2,
    max: 300,
    default: PROVISIONER_DEFAULTS.leaseSeconds,
  }),
  SLUICE_PROVISIONER_DELEGATE_STORAGE_CLASS: textVar({
    description:
      "The cluster's StorageClass that makes new volumes (a cloud's CSI driver: `volumeBackend: delegate`); unset, new volumes are the volume agents' `local` spares",
    flag: 'delegate-storage-class',
  }),
  SLUICE_VOLUME_RETENTION_DAYS: numberVar({
    description:
      "Days a released volume is kept unused before it is deleted (a claim's `sluice.io/volume-retention` annotation overrides); 0 keeps volumes for ever",
    flag: 'retention-days',
    min: 0,
    max: 3650,
    default: PROVISIONER_DEFAULTS.retentionDays,
  }),
};

export type ProvisionerEnv = EnvValues<typeof provisionerEnv>;

/** `sluice volume-agent`: the provisioner's agent on each node (a DaemonSet). */
export const volumeAgentEnv = {
  SLUICE_PROVISIONER_NAME: provisionerName(),
  SLUICE_NODE_NAME: requiredTextVar({
    description: "This node's name (the chart gives the pod's `spec.nodeName`)",
    flag: 'node-name',
  }),
  SLUICE_PROVISIONER_STORAGE_CLASS: storageClass(),
  SLUICE_VOLUME_PARENT_DIR: parentDir(),
  SLUICE_VOLUME_SPARES: numberVar({
    description:
      'Empty `local` volumes kept ready on the node, so a claim no warm volume serves gets one at once',
    flag: 'spares',
    min: 1,
    max: 100,
    default: PROVISIONER_DEFAULTS.volumeSpares,
  }),
  SLUICE_VOLUME_DISK_THRESHOLD: numberVar({
    description:
      'Fraction of the space in use above which the least recently used free volume goes',
    flag: 'disk-threshold',
    min: 0.01,
    max: 1,
    fraction: true,
    default: PROVISIONER_DEFAULTS.diskThreshold,
  }),
  SLUICE_VOLUME_INODE_THRESHOLD: numberVar({
    description:
      'Fraction of the inodes in use above which the least recently used free volume goes',
    flag: 'inode-threshold',
    min: 0.01,
    max: 1,
    fraction: true,
    default: PROVISIONER_DEFAULTS.inodeThreshold,
  }),
  SLUICE_VOLUME_AGENT_INTERVAL_SECONDS: numberVar({
    description: 'Seconds between passes (measure, retire at most one volume, remove orphans)',
    flag: 'interval-seconds',
    min: 1,
    max: 3600,
    fraction: true,
    default: PROVISIONER_DEFAULTS.volumeAgentIntervalSeconds,
  }),
  SLUICE_VOLUME_AGENT_METRICS_PORT: numberVar({
    description:
      'Port of `/metrics` (per volume: size used, builds, last use, in use; the disk) and `/healthz`; 0 picks a free one, -1 serves nothing',
    flag: 'metrics-port',
    min: -1,
    max: 65_535,
    default: PROVISIONER_DEFAULTS.volumeAgentMetricsPort,
  }),
  SLUICE_PROVISIONER_KUBECONFIG: kubeconfig(),
};

export type VolumeAgentEnv = EnvValues<typeof volumeAgentEnv>;
