/**
 * How a cluster reads on its page: its kind (where its credentials are), the namespaces its
 * steps use, the projects that may use it, the lines a step names it with, and the CLI commands
 * for what only the CLI does (a cluster behind the firewall is made and removed through a kube
 * context, which the browser does not have). Pure, for the page and its tests.
 * @module
 */
import type { Cluster } from '@sluice/protocol';

export const CREATE_BEHIND_FIREWALL = 'sluice create cluster NAME --runtime R --namespace N';
export const CREATE_FROM_KUBECONFIG = 'sluice create cluster NAME --kubeconfig-file F';

export function kindText(cluster: Cluster): string {
  switch (cluster.kind) {
    case 'kubeconfig':
      return 'kubeconfig';
    case 'behind-firewall':
      return `behind the firewall of runtime ${cluster.runtime ?? '?'}`;
  }
}

/** The namespace steps use when they name none, and the ones a firewall cluster was granted. */
export function namespacesText(cluster: Cluster): string {
  const fallback = cluster.namespace ?? 'default';
  const others = cluster.namespaces.filter((n) => n !== fallback);
  return others.length === 0 ? fallback : `${fallback} (also ${others.join(', ')})`;
}

export function projectsText(cluster: Cluster): string {
  return cluster.projects === null ? 'every project' : cluster.projects.join(', ');
}

/** What a step writes to reach it: the kube context of its KUBECONFIG, a deploy step's field. */
export function usageLines(name: string): string[] {
  return [`kubectl --context ${name}`, `cluster: ${name}`];
}

export function deleteCommand(name: string): string {
  return `sluice delete cluster ${name}`;
}

/** `web, api,` → `['web', 'api']`; nothing given → undefined (every project). */
export function parseProjects(text: string): string[] | undefined {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.length === 0 ? undefined : names;
}
