/**
 * The Kubernetes clusters a build's steps reach: the account's clusters whose credentials the
 * control plane holds, and those behind the runtime's firewall whose tokens the runner agent
 * minted in the cluster for this build (SLUICE_CLUSTER_CREDENTIALS), each a kubeconfig of one
 * context named after its integration, merged into one file (the first cluster's context
 * current). Every step container gets it at
 * `KUBECONFIG_PATH`, copied in before the container starts, so it is never on the build volume
 * and goes away with the container; `kubectl --context NAME` and `helm --kube-context NAME`
 * then reach each cluster by its name, as in Codefresh.
 * @module
 */

import { ClusterCredentials } from '@sluice/protocol';
import type { DeniedCluster, EngineBuild } from '@sluice/protocol';
import type { Logger } from '@sluice/log';

/** One cluster as the engine is given it. */
export interface KubeCluster {
  name: string;
  /** JSON or YAML of one context named `name`. */
  kubeconfig: string;
  /** Its token, password or key, to mask. */
  secrets: readonly string[];
}

/** Where a step finds the file, outside `/codefresh/volume`; `KUBECONFIG` names it. */
export const KUBECONFIG_PATH = '/.sluice-kubeconfig';

type Entry = Record<string, unknown>;

/** One kubeconfig with a context per cluster; undefined without clusters. */
export function mergeKubeconfigs(clusters: readonly KubeCluster[]): string | undefined {
  if (clusters.length === 0) return undefined;
  const parsed = clusters.map((c) => JSON.parse(c.kubeconfig) as Entry);
  const list = (key: string): unknown[] =>
    parsed.flatMap((k) => {
      const entries = k[key];
      return Array.isArray(entries) ? (entries as unknown[]) : [];
    });
  return `${JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: list('clusters'),
      users: list('users'),
      contexts: list('contexts'),
      'current-context': clusters[0]?.name ?? '',
    },
    null,
    2,
  )}\n`;
}

/**
 * The build's clusters with the agent's: a cluster whose token the agent could not mint is
 * denied with the agent's reason, so a step that names it stops the build before it starts.
 */
export function withClusterCredentials(
  build: Pick<EngineBuild, 'clusters' | 'deniedClusters'>,
  credentials: string | undefined,
  log: Logger,
): { clusters: KubeCluster[]; deniedClusters: DeniedCluster[] } {
  const own = { clusters: [...build.clusters], deniedClusters: [...build.deniedClusters] };
  if (credentials === undefined) return own;
  let parsed: ClusterCredentials;
  try {
    parsed = ClusterCredentials.parse(JSON.parse(credentials));
  } catch (err) {
    log.warn("the agent's cluster credentials do not parse; its clusters are left out", {
      reason: err instanceof Error ? err.message.slice(0, 200) : String(err),
    });
    return own;
  }
  return {
    clusters: [...own.clusters, ...parsed.clusters],
    deniedClusters: [
      ...own.deniedClusters,
      ...parsed.failed.map(({ name, reason }) => ({
        name,
        projects: [],
        reason: `the runner agent could not get a token for it: ${reason}`,
      })),
    ],
  };
}
