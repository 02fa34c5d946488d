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
 * // In a `before` hook of the file: `await cluster.ready()` first.
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

/** The cluster while it runs; `ready()` waits for it (a file's other `before` hooks need it). */
export interface ClusterAccessor {
  (): KubernetesCluster;
  ready(): Promise<KubernetesCluster>;
}

export function useKubernetes(options: UseKubernetesOptions): ClusterAccessor {
  let cluster: KubernetesCluster | undefined;
  let started!: (value: KubernetesCluster) => void;
  let failed!: (reason: unknown) => void;
  const ready = new Promise<KubernetesCluster>((resolve, reject) => {
    started = resolve;
    failed = reject;
  });
  // Nobody may ask; the failure is reported by the hook itself.
  ready.catch(() => undefined);
  // Node's test runner starts a file's root `before` hooks side by side, not one after another.
  before(
    async () => {
      try {
        cluster = await startKubernetes({
          log: (line) => process.stderr.write(`${line}\n`),
          ...options,
        });
        started(cluster);
      } catch (err) {
        failed(err);
        throw err;
      }
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(async () => {
    await cluster?.stop();
    cluster = undefined;
  });
  const accessor = () => {
    if (cluster === undefined) throw notStarted();
    return cluster;
  };
  return Object.assign(accessor, { ready: () => ready });
}
