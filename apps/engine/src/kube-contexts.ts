/**
 * The Kubernetes clusters a build's steps reach: the account's clusters whose credentials the
 * control plane holds, each a kubeconfig of one context named after its integration, merged into
 * one file (the first cluster's context current). Every step container gets it at
 * `KUBECONFIG_PATH`, copied in before the container starts, so it is never on the build volume
 * and goes away with the container; `kubectl --context NAME` and `helm --kube-context NAME`
 * then reach each cluster by its name, as in Codefresh.
 * @module
 */

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
