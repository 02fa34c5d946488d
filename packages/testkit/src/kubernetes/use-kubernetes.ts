/**
 * `useKubernetes()` for node:test files: the cluster of the file's mode in `before`, and an
 * accessor for the tests in between. When the test runner shares one cluster per mode across
 * the kube tier (`SLUICE_TEST_KUBE_SHARED`, shared-clusters.ts), the file attaches to it and
 * leaves it running; otherwise, or when the file asks for a cluster of its own, it starts one
 * in `before` and stops it in `after`.
 *
 * ```ts
 * const cluster = useKubernetes({ nodes: false });
 * test('creates a namespace', async () => {
 *   const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
 * });
 * // In a `before` hook of the file: `await cluster.ready()` first.
 * ```
 *
 * A file on a shared cluster is one of several: it names what it creates (namespaces and every
 * cluster-wide object) for itself, and lists, counts and deletes only what is its own.
 * @module
 */
import { after, before } from 'node:test';
import { notStarted } from './kube-errors.js';
import { startKubernetes } from './kubernetes-cluster.js';
import type { KubernetesCluster, StartKubernetesOptions } from './kubernetes-cluster.js';
import { attachSharedCluster } from './shared-clusters.js';

export interface UseKubernetesOptions extends StartKubernetesOptions {
  /**
   * A cluster of the file's own even when the test runner shares one: for a file that stops
   * its cluster or changes it for everyone. The runner reads the options from the file's text
   * (kube-tier-plan.ts), so write them literally: `useKubernetes({ nodes: true, ownCluster: true })`.
   */
  ownCluster?: boolean;
}

/** Generous: a machine that has never built the binaries builds them here (about 12 minutes). */
const START_TIMEOUT_MS = 30 * 60_000;

/** The cluster while it runs; `ready()` waits for it (a file's other `before` hooks need it). */
export interface ClusterAccessor {
  (): KubernetesCluster;
  ready(): Promise<KubernetesCluster>;
}

export function useKubernetes(options: UseKubernetesOptions): ClusterAccessor {
  const { ownCluster = false, ...startOptions } = options;
  let cluster: KubernetesCluster | undefined;
  let shared = false;
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
        const start = { log: (line: string) => process.stderr.write(`${line}\n`), ...startOptions };
        const attached = ownCluster ? undefined : await attachSharedCluster(start);
        shared = attached !== undefined;
        cluster = attached ?? (await startKubernetes(start));
        started(cluster);
      } catch (err) {
        failed(err);
        throw err;
      }
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(async () => {
    // A shared cluster is the test runner's to stop.
    if (!shared) await cluster?.stop();
    cluster = undefined;
  });
  const accessor = () => {
    if (cluster === undefined) throw notStarted();
    return cluster;
  };
  return Object.assign(accessor, { ready: () => ready });
}
