/**
 * How `runner init` tells, within seconds rather than at its timeout, that the agent's pods
 * cannot reach the control plane: the agent's readiness is its connection (`/readyz`: ready
 * only while the control plane answered its last call), so an agent container that has been
 * running but not Ready for `UNREACHABLE_AFTER_MS`, while the control plane has not heard from
 * the agent, is one whose pod cannot reach the URL it was given.
 * @module
 */
import type { KubeResource } from '@sluice/kube';

/** How long a running agent may stay unconnected before init gives up on the URL. */
export const UNREACHABLE_AFTER_MS = 20_000;

interface ContainerStatus {
  ready?: boolean;
  state?: { running?: unknown };
}

/**
 * The first of `pods` whose containers have all been running, and not all ready, since at least
 * `UNREACHABLE_AFTER_MS` before `now`, as this process saw them (`firstSeen`, by pod name, kept
 * between calls: the node's clock is not ours). Undefined while none has.
 */
export function unreachableAgentPod(
  pods: readonly KubeResource[],
  firstSeen: Map<string, number>,
  now: number,
): { name: string; waitedMs: number } | undefined {
  for (const pod of pods) {
    const name = pod.metadata.name;
    const statuses =
      (pod['status'] as { containerStatuses?: ContainerStatus[] } | undefined)?.containerStatuses ??
      [];
    const waiting =
      statuses.length > 0 &&
      statuses.every((c) => c.state?.running !== undefined) &&
      statuses.some((c) => c.ready !== true);
    if (!waiting) {
      firstSeen.delete(name);
      continue;
    }
    const since = firstSeen.get(name) ?? now;
    firstSeen.set(name, since);
    if (now - since >= UNREACHABLE_AFTER_MS) return { name, waitedMs: now - since };
  }
  return undefined;
}
