/**
 * The one place the Kubernetes part of the test kit reads the environment (STYLE.md §6), so the
 * variables it honours are listed in one file:
 *
 * - `SLUICE_KUBE_CACHE_DIR`: where the built binaries are kept, one directory per version
 *   (default `/var/cache/sluice/kubernetes`: machine-wide and outside the repository, so every
 *   clone reuses one build).
 * - `SLUICE_KUBE_STATE_DIR`: where each cluster's state directory is made (default the system
 *   temp dir). Kept short: containerd's socket path must fit in 108 bytes.
 * @module
 */
import { tmpdir } from 'node:os';

export const DEFAULT_KUBE_CACHE_DIR = '/var/cache/sluice/kubernetes';

export interface KubeEnv {
  cacheDir: string;
  stateRoot: string;
}

export function readKubeEnv(): KubeEnv {
  const env = process.env;
  return {
    cacheDir: nonEmpty(env.SLUICE_KUBE_CACHE_DIR) ?? DEFAULT_KUBE_CACHE_DIR,
    stateRoot: nonEmpty(env.SLUICE_KUBE_STATE_DIR) ?? tmpdir(),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
