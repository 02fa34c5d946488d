/**
 * Whether a build pod failed for a reason of the cluster's, read from its status alone: a pod
 * that ended (`Failed`: Evicted, OOMKilled, a container that exited; `Succeeded` while its
 * build still runs: the engine ended without reporting), one on a lost node, one deleted by
 * someone else, or one stuck before it could run — not schedulable, its image not pulled, its
 * container not created. The stuck kinds count only once they last (`pending`), because a
 * registry hiccup or a node coming up can clear them.
 * @module
 */
import type { KubeContainerStatus, KubePod } from '@sluice/kube';

export interface PodFailure {
  /** `terminal`: the pod will not run; `pending`: stuck, reported once it lasts a grace time. */
  kind: 'terminal' | 'pending';
  /** `Unschedulable` stands apart: a cluster autoscaler may add a node for it. */
  reason: string;
  message: string;
  /**
   * Unschedulable only for want of room (`Insufficient cpu`, `Too many pods` on a node that
   * would otherwise take it): builds that end, or a node the autoscaler adds, make room.
   */
  forRoom?: boolean;
}

/** The scheduler's words for a node that would take the pod once it has room. */
const NO_ROOM = /\bInsufficient [\w./-]+|\bToo many pods\b/;

/** Container waiting reasons that mean it will not start without a change. */
const WAITING_FAILURES = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'CrashLoopBackOff',
]);

function containers(pod: KubePod): KubeContainerStatus[] {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
}

/**
 * Code 137 is SIGKILL. The kernel's out-of-memory killer is the usual sender, but the runtime
 * reports `OOMKilled` only when its OOM event arrives before the exit (under load containerd
 * can see the exit first, and the reason is `Error`): the message says what the code means.
 */
const SIGKILL_EXIT = 137;

function exited(container: KubeContainerStatus): string | undefined {
  const done = container.state?.terminated;
  if (done === undefined) return undefined;
  const how = done.reason === undefined ? '' : ` (${done.reason})`;
  const said = done.message === undefined || done.message === '' ? '' : `: ${done.message.trim()}`;
  const killed =
    done.exitCode === SIGKILL_EXIT ? ', SIGKILL: out of memory, or killed from outside' : '';
  return `container ${container.name} exited with code ${done.exitCode ?? '?'}${how}${killed}${said}`;
}

export function podFailure(pod: KubePod): PodFailure | undefined {
  const status = pod.status ?? {};
  const all = containers(pod);
  const oom = all.find((c) => c.state?.terminated?.reason === 'OOMKilled');
  if (oom !== undefined)
    return {
      kind: 'terminal',
      reason: 'OOMKilled',
      message: `container ${oom.name} was killed for using more memory than its limit`,
    };
  if (status.phase === 'Failed' || status.phase === 'Succeeded') {
    const ended = all.map(exited).filter((m) => m !== undefined);
    const failed = all.find((c) => (c.state?.terminated?.exitCode ?? 0) !== 0);
    return {
      kind: 'terminal',
      reason:
        status.reason ??
        failed?.state?.terminated?.reason ??
        (status.phase === 'Failed' ? 'Failed' : 'Completed'),
      message: status.message ?? (ended.join('; ') || `the pod is ${status.phase}`),
    };
  }
  if (status.phase === 'Unknown' || status.reason === 'NodeLost')
    return {
      kind: 'terminal',
      reason: status.reason ?? 'NodeLost',
      message:
        status.message ??
        `the node${pod.spec?.nodeName === undefined ? '' : ` ${pod.spec.nodeName}`} stopped reporting the pod's state`,
    };
  if (pod.metadata.deletionTimestamp !== undefined)
    return {
      kind: 'terminal',
      reason: 'Deleted',
      message: `the pod was deleted at ${pod.metadata.deletionTimestamp} (by a user, a node drain or an eviction)`,
    };
  const stuck = all.find((c) => WAITING_FAILURES.has(c.state?.waiting?.reason ?? ''));
  if (stuck !== undefined) {
    const waiting = stuck.state?.waiting ?? {};
    return {
      kind: 'pending',
      reason: waiting.reason ?? 'Waiting',
      message: `container ${stuck.name}: ${waiting.message ?? waiting.reason ?? 'waiting'}`,
    };
  }
  const scheduled = status.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable')
    return {
      kind: 'pending',
      reason: 'Unschedulable',
      message: scheduled.message ?? 'no node can run the pod',
      ...(NO_ROOM.test(scheduled.message ?? '') ? { forRoom: true } : {}),
    };
  return undefined;
}
