/**
 * `useKubernetes()` for node:test files: starts one cluster in `before` and stops it in
 * `after`, and returns an accessor for the tests in between. One API-only and one node-mode
 * cluster per test file at most keeps the kube tier to a few minutes.
 *
 * ```ts
 * const cluster = useKubernetes({ nodes: false });
 * test('creates a namespace', async () => {
 *   const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
 * });
 * ```
 * @module
 */
import { after, before } from 'node:test';
import { notStarted } from './kube-errors.js';
import { startKubernetes } from './kubernetes-cluster.js';
import type { KubernetesCluster, StartKubernetesOptions } from './kubernetes-cluster.js';

export type UseKubernetesOptions = StartKubernetesOptions;

/** Generous: a machine that has never built the binaries builds them here (about 12 minutes). */
const START_TIMEOUT_MS = 30 * 60_000;

export function useKubernetes(options: UseKubernetesOptions): () => KubernetesCluster {
  let cluster: KubernetesCluster | undefined;
  before(
    async () => {
      cluster = await startKubernetes({
        log: (line) => process.stderr.write(`${line}\n`),
        ...options,
      });
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(async () => {
    await cluster?.stop();
    cluster = undefined;
  });
  return () => {
    if (cluster === undefined) throw notStarted();
    return cluster;
  };
}
