/**
 * Zero orphans: every `reapIntervalMs` the agent lists what it made on each runtime (by label,
 * or pid file for engine processes), asks the control plane for the state of those builds, and
 * deletes the objects of builds that are finished or unknown — after a crash, a lost task or a
 * build deleted meanwhile. Builds whose tasks the agent holds right now are left alone. Each
 * pass is the agent's reconcile loop, so it is timed, and the listing gives the build pods by
 * phase (engine processes by state) for the metrics.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { SluiceClient } from '@sluice/protocol';
import { sleep } from '@sluice/process';
import type { AgentMetrics } from './agent-metrics.js';
import type { BuildObjectRef, RuntimeBackend } from './runtime-backend.js';

export interface OrphanReaperOptions {
  client: SluiceClient;
  backends: readonly RuntimeBackend[];
  metrics: AgentMetrics;
  logger: Logger;
  /** Builds the agent is working on now. */
  busyBuilds(): Set<string>;
}

const STATES_PER_REQUEST = 500;

/**
 * One pass over every runtime. `failing` holds what each runtime's last pass failed with: a
 * failure that stays the same (a state directory removed under the agent) is logged when it
 * starts, not every pass after, and the pass that works again says so.
 */
async function reapOnce(options: OrphanReaperOptions, failing: Map<string, string>): Promise<void> {
  for (const backend of options.backends) {
    const started = performance.now();
    const { runtime } = backend;
    try {
      await reapRuntime(backend, options);
      if (failing.delete(runtime)) options.logger.info('reaper pass works again', { runtime });
    } catch (err) {
      const reason = describeError(err);
      if (failing.get(runtime) !== reason)
        options.logger.warn('reaper pass failed; said once until the reason changes', {
          runtime,
          reason,
        });
      failing.set(runtime, reason);
    }
    const seconds = (performance.now() - started) / 1000;
    options.metrics.reconcileDone('reaper', backend.runtime, seconds);
  }
}

async function reapRuntime(backend: RuntimeBackend, options: OrphanReaperOptions): Promise<void> {
  const byBuild = new Map<string, BuildObjectRef[]>();
  const listed = await backend.listBuildObjects();
  options.metrics.setBuildPods(backend.runtime, podPhases(listed));
  for (const ref of listed) byBuild.set(ref.buildId, [...(byBuild.get(ref.buildId) ?? []), ref]);
  const busy = options.busyBuilds();
  const ids = [...byBuild.keys()].filter((id) => !busy.has(id));
  for (let i = 0; i < ids.length; i += STATES_PER_REQUEST) {
    const { builds } = await options.client.call('agentBuildStates', {
      body: { buildIds: ids.slice(i, i + STATES_PER_REQUEST) },
    });
    for (const build of builds.filter((b) => b.finished)) {
      // Taken since the listing: its stop tasks will do it, in order.
      if (options.busyBuilds().has(build.buildId)) continue;
      const refs = byBuild.get(build.buildId) ?? [];
      await backend.deleteBuildObjects(refs);
      options.logger.info('reaped the objects of a finished build', {
        runtime: backend.runtime,
        buildId: build.buildId,
        status: build.status,
        objects: refs.map((r) => `${r.kind}/${r.name}`).join(', '),
      });
      options.metrics.reaped(backend.runtime, refs.length);
    }
  }
}

/** Pods (or engine processes) by phase; an object without one counts as `Unknown`. */
export function podPhases(refs: readonly BuildObjectRef[]): Record<string, number> {
  const phases: Record<string, number> = {};
  for (const ref of refs) {
    if (ref.kind !== 'Pod' && ref.kind !== 'EngineProcess') continue;
    const phase = ref.phase ?? 'Unknown';
    phases[phase] = (phases[phase] ?? 0) + 1;
  }
  return phases;
}

/** Runs a pass every `intervalMs` until the signal aborts. */
export async function runReaper(
  options: OrphanReaperOptions & { intervalMs: number; signal: AbortSignal },
): Promise<void> {
  const failing = new Map<string, string>();
  while (!options.signal.aborted) {
    await reapOnce(options, failing);
    await sleep(options.intervalMs, options.signal);
  }
}
