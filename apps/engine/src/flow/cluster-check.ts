/**
 * Before any step starts: a step that deploys to one of the account's clusters that the build
 * may not use (the cluster is limited to other projects, is behind another runtime's firewall,
 * or its agent could not mint its token) stops the build there, naming
 * the step, where it is written, the cluster and the projects that may use it. What is checked
 * is the cluster a step names as written: a `deploy` step's `cluster`, the `CLUSTER` or
 * `CONTEXT` of the kubectl-apply step type, helm's `kube_context`; such a cluster is never in the build's KUBECONFIG
 * either, so a freestyle `kubectl --context NAME` finds no context of that name.
 * @module
 */
import type { Pipeline } from '@sluice/pipeline';
import { allSteps, hookSteps } from '../base/build-scope.js';

/** A cluster of the account that this build may not use. */
export interface DeniedCluster {
  name: string;
  /** The projects that may use it. */
  projects: readonly string[];
  /** Why, when it is not the projects (another runtime's cluster, a token not minted). */
  reason?: string;
}

/** The environment a step names its cluster in: the deploy step's, kubectl-apply's, helm's. */
const CLUSTER_VARIABLES = new Set([
  'SLUICE_DEPLOY_CLUSTER',
  'SLUICE_KUBE_CONTEXT',
  'SLUICE_HELM_KUBE_CONTEXT',
]);

/** Why the build stops, or undefined when no step deploys where it may not. */
export function deniedClusterUse(
  pipeline: Pipeline,
  denied: readonly DeniedCluster[],
): string | undefined {
  if (denied.length === 0) return undefined;
  for (const step of allSteps([...pipeline.steps, ...hookSteps(pipeline.hooks)])) {
    if (step.type !== 'freestyle') continue;
    for (const [key, value] of step.environment) {
      const cluster = CLUSTER_VARIABLES.has(key) ? denied.find((d) => d.name === value) : undefined;
      if (cluster === undefined) continue;
      const where = `${pipeline.file}:${step.position.line}:${step.position.column}`;
      const who = cluster.projects.length === 0 ? 'no project' : cluster.projects.join(', ');
      const why =
        cluster.reason ??
        `this build's project may not use it (only ${who} may: sluice describe cluster ${cluster.name})`;
      return `Step "${step.name}" at ${where} deploys to cluster "${cluster.name}", which this build cannot use: ${why}; no step was started`;
    }
  }
  return undefined;
}
