/**
 * A build's tasks on a runtime with a warm pool. The control plane sends the same tasks either
 * way; the agent decides at the claim's task whether the build runs on a pool pod:
 * - `CreatePvc`: the pool learns the claim, then the build tries to take a pool pod. If it
 *   does, the claim is not made (the pod has its own, warm).
 * - `CreatePod` of the dind pod: not made when the build holds a pool pod.
 * - `CreatePod` of the engine pod: with a pool pod, its variables are handed to the engine
 *   waiting there instead; a pod that does not take them is deleted, and the build's claim
 *   and dind pod are made after all (the agent kept them) before its engine pod, as without a
 *   pool; an agent that restarted in between has not kept them: the task then fails
 *   retriably.
 * - `DeletePvc`: the build's claims go, its pool pod's and its own; the pool notes the volumes
 *   they had, and makes its next pods on them (the cache the build left).
 * - `DeletePod`: the build's pool pod goes too (its Secret with it).
 * Every other task, and every task of a build that missed, is applied as without a pool. The
 * Secret and ConfigMap are made either way: the engine's variables come from that Secret.
 * @module
 */
import { BUILD_LABELS } from '@sluice/labels';
import type { Logger } from '@sluice/log';
import type { Task } from '@sluice/protocol';
import { TaskFailure } from '../../runtime-backend.js';
import type { KubeTaskAction } from './kube-task.js';
import type { WarmPool } from './warm-pool.js';
import { handedOver } from './warm-pool-handover.js';

export interface PoolTaskOptions {
  signal: AbortSignal;
  logger: Logger;
  /** Notes a pod the agent deleted, so the pod monitor does not report it. */
  deleted: (pod: string) => void;
}

/** True when the pool did the task (nothing more to apply); false to apply it as usual. */
export async function applyThroughPool(
  pool: WarmPool,
  task: Task,
  action: KubeTaskAction,
  options: PoolTaskOptions,
): Promise<boolean> {
  const buildId = task.buildId;
  if (buildId === null) return false;
  const { signal } = options;
  if (action.action === 'delete') {
    // The claim goes first (a build waiting for its volume sees it going), then the pod.
    if (action.ref.kind === 'PersistentVolumeClaim') {
      await pool.releaseClaim(buildId, action.ref, signal);
      return true;
    }
    if (action.ref.kind === 'Secret') pool.forgetSecret(action.ref);
    if (action.ref.kind !== 'Pod') return false;
    pool.forget(buildId);
    const released = await pool.release(buildId, signal);
    if (released !== undefined) options.deleted(released);
    return false;
  }
  if (action.action !== 'create') return false;
  const manifest = action.manifest;
  pool.learn(manifest);
  switch (manifest.kind) {
    case 'PersistentVolumeClaim': {
      // A task applied again finds the pod the build already took.
      const took = (await pool.take(buildId, signal)) !== undefined;
      if (took) pool.skipped(buildId, manifest);
      return took;
    }
    case 'Pod':
      return applyPod(pool, buildId, manifest, options);
    case 'Secret':
      // Its values are what the handover gives the engine: kept, so it need not read them back.
      pool.noteSecret(manifest);
      return false;
    case 'ConfigMap':
    case 'Service':
      // Made either way: the engine's variables come from the build's Secret.
      return false;
  }
}

async function applyPod(
  pool: WarmPool,
  buildId: string,
  manifest: Extract<KubeTaskAction, { action: 'create' }>['manifest'],
  options: PoolTaskOptions,
): Promise<boolean> {
  const component = manifest.metadata.labels?.[BUILD_LABELS.component];
  if (component !== 'dind' && component !== 'engine') return false;
  const held = await pool.heldBy(buildId, options.signal);
  // A retry on new pods (the pool pod failed: evicted, preempted) uses the build's claim, which
  // the take left unmade: it is made now, before the new dind pod.
  if (held === undefined) {
    if (component === 'dind')
      await pool.makeSkipped(buildId, options.signal, 'PersistentVolumeClaim');
    return false;
  }
  if (component === 'dind') {
    pool.skipped(buildId, manifest);
    return true;
  }
  if (handedOver(held)) return true;
  try {
    await pool.handOver(buildId, held, manifest, options.signal);
    return true;
  } catch (err) {
    const name = held.metadata.name;
    options.logger.warn('a warm pool pod did not take its build: the build makes its own pods', {
      buildId,
      pod: name,
      reason: err instanceof Error ? err.message : String(err),
    });
    options.deleted(name);
    await pool.release(buildId, options.signal).catch(() => undefined);
    // The build runs on pods of its own: its claim and dind pod, not made so far, are made now
    // and its engine pod next, as the task asks.
    if (await pool.makeSkipped(buildId, options.signal)) return false;
    throw new TaskFailure(
      `Pool pod ${name} did not take build ${buildId}: ${err instanceof Error ? err.message : String(err)}`,
      { retriable: true, cause: err },
    );
  }
}
