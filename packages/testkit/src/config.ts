/**
 * The one place the testkit reads the environment (see STYLE.md §6): every other module asks
 * here, so the variables it honours are listed in one file.
 *
 * - `SLUICE_TEST_DATABASE_URL`: use this PostgreSQL server instead of a throwaway cluster.
 * - `DOCKER_HOST`: the engine the `docker` CLI talks to; when set, the testkit never starts one.
 * - `SLUICE_KUBE_CACHE_DIR`: where the built Kubernetes binaries are kept, one directory per
 *   version (default `/var/cache/sluice/kubernetes`: machine-wide and outside the repository,
 *   so every clone reuses one build).
 * - `SLUICE_KUBE_STATE_DIR`: where each test cluster's state directory is made (default the
 *   system temp dir). Kept short: containerd's socket path must fit in 108 bytes.
 * - `SLUICE_TEST_KUBE_SHARED`: the JSON file describing the test clusters a test run shares
 *   (one per mode), which `useKubernetes()` attaches to instead of starting its own. Set by
 *   `scripts/run-tests.mjs` for the kube tier's processes, from `startSharedClusters`; not a
 *   setting for people (the clusters belong to the process that started them).
 * @module
 */
import { tmpdir } from 'node:os';

export const DEFAULT_KUBE_CACHE_DIR = '/var/cache/sluice/kubernetes';

export interface TestkitEnv {
  databaseUrl: string | undefined;
  dockerHost: string | undefined;
  /** PATH entries, in order. */
  path: string[];
  kubeCacheDir: string;
  kubeStateRoot: string;
  /** The shared clusters' description file, when the test runner started them. */
  kubeShared: string | undefined;
}

export function readTestkitEnv(): TestkitEnv {
  return {
    databaseUrl: nonEmpty(process.env['SLUICE_TEST_DATABASE_URL']),
    dockerHost: nonEmpty(process.env['DOCKER_HOST']),
    path: (process.env['PATH'] ?? '').split(':').filter((dir) => dir !== ''),
    kubeCacheDir: nonEmpty(process.env['SLUICE_KUBE_CACHE_DIR']) ?? DEFAULT_KUBE_CACHE_DIR,
    kubeStateRoot: nonEmpty(process.env['SLUICE_KUBE_STATE_DIR']) ?? tmpdir(),
    kubeShared: nonEmpty(process.env['SLUICE_TEST_KUBE_SHARED']),
  };
}

/** The environment for a child process: ours plus `extra`, so PATH and DOCKER_HOST carry over. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
