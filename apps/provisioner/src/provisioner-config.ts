/**
 * `sluice provisioner`'s configuration, from its flags and environment (`@sluice/config`'s
 * `provisionerEnv`): every problem reported at once, each naming its flag and variable.
 * @module
 */
import { hostname } from 'node:os';
import { configError, parseEnv, provisionerEnv } from '@sluice/config';
import type { Env } from '@sluice/config';
import type { KubeSource } from '@sluice/kube';

export interface ProvisionerConfig {
  provisionerName: string;
  storageClass: string;
  namespace: string;
  volumeParentDir: string;
  identity: string;
  source: KubeSource;
  resyncMs: number;
  leaseDurationMs: number;
}

/** Flags as `sluice provisioner` takes them: one per variable, named by its `flag`. */
export type ProvisionerFlags = Partial<Record<keyof typeof provisionerEnv, string>>;

/** @throws InputError `SLUICE_PROVISIONER_CONFIG_INVALID` listing every problem. */
export function parseProvisionerConfig(flags: ProvisionerFlags, env: Env): ProvisionerConfig {
  const merged: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(flags)) if (value !== undefined) merged[name] = value;
  const { values: v, problems } = parseEnv(provisionerEnv, merged);
  if (problems.length > 0)
    throw configError(problems, {
      code: 'SLUICE_PROVISIONER_CONFIG_INVALID',
      whose: "the provisioner's",
      hint: 'See `sluice provisioner --help`',
    });
  const kubeconfig = v.SLUICE_PROVISIONER_KUBECONFIG;
  return {
    provisionerName: v.SLUICE_PROVISIONER_NAME,
    storageClass: v.SLUICE_PROVISIONER_STORAGE_CLASS,
    namespace: v.SLUICE_PROVISIONER_NAMESPACE,
    volumeParentDir: v.SLUICE_VOLUME_PARENT_DIR,
    identity: v.SLUICE_PROVISIONER_IDENTITY ?? hostname(),
    source:
      kubeconfig === undefined ? { type: 'in-cluster' } : { type: 'kubeconfig', path: kubeconfig },
    resyncMs: v.SLUICE_PROVISIONER_RESYNC_SECONDS * 1000,
    leaseDurationMs: v.SLUICE_PROVISIONER_LEASE_SECONDS * 1000,
  };
}
