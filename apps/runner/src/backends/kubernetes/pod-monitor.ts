/**
 * The pod monitor of one Kubernetes runtime: every two seconds one list call reads the status of
 * every build pod of the runtime; a pod that failed for a reason of the cluster's
 * (`pod-failures.ts`) — at once when it ended, after a grace time when it is stuck — is reported
 * to the control plane, which retries the build on new pods or ends it `error` with the pod's
 * reason. So a build whose pod cannot be scheduled, pulled or kept in memory ends in seconds,
 * not at a timeout. A pod that waits only for room on a node (a burst bigger than the cluster,
 * an autoscaler adding a node) waits up to 15 minutes: the builds before it end, or a node comes.
 * A pod that vanishes while the agent did not delete it is reported too. Each pod is reported
 * once; a report the control plane did not receive is sent again next pass.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { KubeClient, KubePod } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import type { InfrastructureErrorReport } from '@sluice/protocol';
import type { ReportInfrastructureError } from '../../runtime-backend.js';
import { BUILD_LABELS, runtimeSelector } from '@sluice/labels';
import { sleep } from '@sluice/process';
import { podFailure } from './pod-failures.js';

export interface PodMonitorOptions {
  kube: KubeClient;
  runtime: string;
  namespace: string;
  logger: Logger;
  report: ReportInfrastructureError;
  /** Whether the agent itself deleted the pod (a stop, retry or reaper task). */
  deletedByAgent(pod: string): boolean;
  /** The control plane acted on a report: stop waiting on the build's tasks in flight. */
  onSettled(buildId: string): void;
  podFailureGraceMs: number;
  unschedulableGraceMs: number;
  clock?: () => number;
}

export const POD_MONITOR_INTERVAL_MS = 2_000;
/** How long a pod unschedulable only for want of room waits, at least (`forRoom`). */
export const ROOM_WAIT_MS = 15 * 60_000;

export class PodMonitor {
  readonly #options: PodMonitorOptions;
  readonly #clock: () => number;
  /** When each pod was first seen stuck, by uid and reason. */
  readonly #stuckSince = new Map<string, number>();
  /** Pods (by uid) already reported and acknowledged. */
  readonly #reported = new Set<string>();
  /** Build pods seen last pass, by name: their build, to report one that vanished. */
  #seen = new Map<string, string>();

  constructor(options: PodMonitorOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
  }

  /** One pass; resolves to the build pods by phase. */
  async pass(signal?: AbortSignal): Promise<Record<string, number>> {
    const { kube, namespace, runtime } = this.#options;
    const pods = await kube.listPods(
      { namespace, labelSelector: runtimeSelector(runtime) },
      signal === undefined ? {} : { signal },
    );
    const phases: Record<string, number> = {};
    const seen = new Map<string, string>();
    const uids = new Set<string>();
    for (const pod of pods) {
      const buildId = pod.metadata.labels?.[BUILD_LABELS.buildId];
      const phase = pod.status?.phase ?? 'Unknown';
      phases[phase] = (phases[phase] ?? 0) + 1;
      if (buildId === undefined || buildId === '') continue;
      const uid = pod.metadata.uid ?? pod.metadata.name;
      seen.set(pod.metadata.name, buildId);
      uids.add(uid);
      await this.#check(pod, buildId, uid);
    }
    for (const [name, buildId] of this.#seen)
      if (!seen.has(name) && !this.#options.deletedByAgent(name))
        await this.#send(buildId, name, {
          pod: name,
          reason: 'Deleted',
          message: 'the pod is gone: it was deleted by a user, a node drain or the node',
        });
    this.#seen = seen;
    for (const key of this.#stuckSince.keys())
      if (!uids.has(key.slice(0, key.indexOf('/')))) this.#stuckSince.delete(key);
    for (const uid of this.#reported) if (!uids.has(uid)) this.#reported.delete(uid);
    return phases;
  }

  async #check(pod: KubePod, buildId: string, uid: string): Promise<void> {
    if (this.#reported.has(uid)) return;
    const failure = podFailure(pod);
    if (failure === undefined) return;
    const name = pod.metadata.name;
    if (failure.reason === 'Deleted' && this.#options.deletedByAgent(name)) return;
    if (failure.kind === 'pending') {
      const key = `${uid}/${failure.reason}`;
      const since = this.#stuckSince.get(key) ?? this.#clock();
      this.#stuckSince.set(key, since);
      const grace =
        failure.reason !== 'Unschedulable'
          ? this.#options.podFailureGraceMs
          : failure.forRoom === true
            ? Math.max(ROOM_WAIT_MS, this.#options.unschedulableGraceMs)
            : this.#options.unschedulableGraceMs;
      if (this.#clock() - since < grace) return;
    }
    await this.#send(buildId, uid, { pod: name, reason: failure.reason, message: failure.message });
  }

  async #send(buildId: string, uid: string, report: InfrastructureErrorReport): Promise<void> {
    const log = { runtime: this.#options.runtime, buildId, ...report };
    try {
      const answer = await this.#options.report(buildId, report);
      this.#reported.add(uid);
      if (answer.action === 'ignored') return;
      this.#options.logger.warn('build pod failed', { ...log, ...answer });
      this.#options.onSettled(buildId);
    } catch (err) {
      // Sent again next pass: the pod is not marked reported.
      this.#options.logger.warn('pod failure not reported', { ...log, error: describeError(err) });
    }
  }
}

/** A pass every `POD_MONITOR_INTERVAL_MS` until the signal aborts; a failed pass is logged. */
export async function runPodMonitor(
  monitor: Pick<PodMonitor, 'pass'>,
  options: {
    logger: Logger;
    signal: AbortSignal;
    onPass?: ((seconds: number, phases: Record<string, number>) => void) | undefined;
  },
): Promise<void> {
  const { logger, signal } = options;
  while (!signal.aborted) {
    const started = performance.now();
    try {
      const phases = await monitor.pass(signal);
      options.onPass?.((performance.now() - started) / 1000, phases);
    } catch (err) {
      if (!signal.aborted) logger.warn('pod monitor pass failed', { reason: describeError(err) });
    }
    await sleep(POD_MONITOR_INTERVAL_MS, signal);
  }
}
