/**
 * `sluice provisioner`'s configuration, from its flags and environment (`@sluice/config`'s
 * `provisionerEnv`): every problem reported at once, each naming its flag and variable.
 * @module
 */
import { hostname } from 'node:os';
import { configError, parseEnv, provisionerEnv, volumeAgentEnv } from '@sluice/config';
import type { Env, EnvShape, EnvValues } from '@sluice/config';
import type { KubeSource } from '@sluice/kube';

export interface ProvisionerConfig {
  provisionerName: string;
  storageClass: string;
  namespace: string;
  identity: string;
  source: KubeSource;
  resyncMs: number;
  leaseDurationMs: number;
  retentionDays: number;
  /** The cluster's StorageClass new volumes come from; '' for the node agents' spares. */
  delegateStorageClass: string;
}

export interface VolumeAgentConfig {
  provisionerName: string;
  nodeName: string;
  storageClass: string;
  volumeParentDir: string;
  spares: number;
  diskThreshold: number;
  inodeThreshold: number;
  intervalMs: number;
  /** Port of `/metrics` and `/healthz`; 0 a free one, -1 none. */
  metricsPort: number;
  source: KubeSource;
}

/** Flags as the commands take them, under their variables' names (flags win). */
export type ProvisionerFlags = Partial<Record<string, string>>;

function merged(flags: ProvisionerFlags, env: Env): Env {
  const out: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(flags)) if (value !== undefined) out[name] = value;
  return out;
}

/** The values, or every problem at once as `SLUICE_PROVISIONER_CONFIG_INVALID`. */
function valuesOf<S extends EnvShape>(
  shape: S,
  env: Env,
  whose: string,
  command: string,
): EnvValues<S> {
  const { values, problems } = parseEnv(shape, env);
  if (problems.length > 0)
    throw configError(problems, {
      code: 'SLUICE_PROVISIONER_CONFIG_INVALID',
      whose,
      hint: `See \`sluice ${command} --help\``,
    });
  return values;
}

function kubeSource(kubeconfig: string | undefined): KubeSource {
  return kubeconfig === undefined
    ? { type: 'in-cluster' }
    : { type: 'kubeconfig', path: kubeconfig };
}

/** @throws InputError `SLUICE_PROVISIONER_CONFIG_INVALID` listing every problem. */
export function parseProvisionerConfig(flags: ProvisionerFlags, env: Env): ProvisionerConfig {
  const v = valuesOf(provisionerEnv, merged(flags, env), "the provisioner's", 'provisioner');
  return {
    provisionerName: v.SLUICE_PROVISIONER_NAME,
    storageClass: v.SLUICE_PROVISIONER_STORAGE_CLASS,
    namespace: v.SLUICE_PROVISIONER_NAMESPACE,
    identity: v.SLUICE_PROVISIONER_IDENTITY ?? hostname(),
    source: kubeSource(v.SLUICE_PROVISIONER_KUBECONFIG),
    resyncMs: v.SLUICE_PROVISIONER_RESYNC_SECONDS * 1000,
    leaseDurationMs: v.SLUICE_PROVISIONER_LEASE_SECONDS * 1000,
    retentionDays: v.SLUICE_VOLUME_RETENTION_DAYS,
    delegateStorageClass: v.SLUICE_PROVISIONER_DELEGATE_STORAGE_CLASS ?? '',
  };
}

/** @throws InputError `SLUICE_PROVISIONER_CONFIG_INVALID` listing every problem. */
export function parseVolumeAgentConfig(flags: ProvisionerFlags, env: Env): VolumeAgentConfig {
  const v = valuesOf(volumeAgentEnv, merged(flags, env), "the volume agent's", 'volume-agent');
  return {
    provisionerName: v.SLUICE_PROVISIONER_NAME,
    nodeName: v.SLUICE_NODE_NAME,
    storageClass: v.SLUICE_PROVISIONER_STORAGE_CLASS,
    volumeParentDir: v.SLUICE_VOLUME_PARENT_DIR,
    spares: v.SLUICE_VOLUME_SPARES,
    diskThreshold: v.SLUICE_VOLUME_DISK_THRESHOLD,
    inodeThreshold: v.SLUICE_VOLUME_INODE_THRESHOLD,
    intervalMs: v.SLUICE_VOLUME_AGENT_INTERVAL_SECONDS * 1000,
    metricsPort: v.SLUICE_VOLUME_AGENT_METRICS_PORT,
    source: kubeSource(v.SLUICE_PROVISIONER_KUBECONFIG),
  };
}
