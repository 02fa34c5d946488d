/**
 * `sluice provisioner`'s environment: the volume provisioner of one runtime's StorageClass
 * (`apps/provisioner`). Each variable has a flag of the same meaning.
 * @module
 */
import { numberVar, requiredTextVar, textVar } from './variables.js';
import type { EnvValues } from './parse-env.js';

export const PROVISIONER_DEFAULTS = {
  volumeParentDir: '/var/lib/sluice/volumes',
  resyncSeconds: 1,
  leaseSeconds: 15,
} as const;

export const provisionerEnv = {
  SLUICE_PROVISIONER_NAME: requiredTextVar({
    description: "The `provisioner` of the runtime's StorageClass, which this provisioner serves",
    flag: 'provisioner-name',
  }),
  SLUICE_PROVISIONER_STORAGE_CLASS: requiredTextVar({
    description: 'The StorageClass whose claims it answers',
    flag: 'storage-class',
  }),
  SLUICE_PROVISIONER_NAMESPACE: requiredTextVar({
    description: "The runtime's namespace: where the claims and the leader-election Lease are",
    flag: 'namespace',
  }),
  SLUICE_VOLUME_PARENT_DIR: textVar({
    description: 'The directory on every node under which the volumes are',
    flag: 'volume-parent-dir',
    default: PROVISIONER_DEFAULTS.volumeParentDir,
  }),
  SLUICE_PROVISIONER_IDENTITY: textVar({
    description: "This replica's name in the leader election (the chart gives the pod's name)",
    flag: 'identity',
    defaultText: 'the host name',
  }),
  SLUICE_PROVISIONER_KUBECONFIG: textVar({
    description: "A kubeconfig file; without one, the pod's own service account",
    flag: 'kubeconfig',
  }),
  SLUICE_PROVISIONER_RESYNC_SECONDS: numberVar({
    description: 'Seconds between looks at the claims and volumes',
    flag: 'resync-seconds',
    min: 0.1,
    max: 60,
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
};

export type ProvisionerEnv = EnvValues<typeof provisionerEnv>;
