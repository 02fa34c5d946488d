/**
 * `startAgent(config)`: the runner agent. It learns its runtimes from the control plane, makes a
 * backend for each (a Kubernetes cluster or this machine's Docker engine), and runs three loops
 * over outbound connections only: the task long-poll feeding the dispatcher, the heartbeat with
 * each runtime's health, and the orphan reaper. `stop()` stops taking tasks, lets the held ones
 * finish (up to `drainTimeoutMs`), and lets go of everything; what it did not finish comes back
 * to an agent when its lease ends, and is idempotent.
 * @module
 */
import { describeError } from '@sluice/errors';
import { silentLogger } from '@sluice/log';
import type { Logger } from '@sluice/log';
import type { AgentHealth, AgentRuntime, SluiceClient } from '@sluice/protocol';
import { sleep } from '@sluice/process';
import { apiErrorCounts, createAgentMetrics, warmPoolStats } from './agent-metrics.js';
import type { AgentMetrics } from './agent-metrics.js';
import { startAgentHttp } from './agent-http.js';
import type { AgentHttp } from './agent-http.js';
import { createControlPlaneClient } from '@sluice/protocol/node';
import { ApiErrorTally, countingErrors } from './control-plane-errors.js';
import { runHeartbeat } from './health-report.js';
import { runReaper } from './orphan-reaper.js';
import type { RunnerConfig, RuntimeTarget } from './runner-config.js';
import type { RuntimeBackend } from './runtime-backend.js';
import { createTaskRunner } from './task-runner.js';
import { deliverReport } from './delivered-report.js';
import { TaskDispatcher } from './task-dispatcher.js';
import { backoffMs, runTaskPoller } from './task-poller.js';

export type BackendFactory = (
  target: RuntimeTarget,
  context: {
    logger: Logger;
    config: RunnerConfig;
    runtime: AgentRuntime | undefined;
    /** The agent's environment (`StartAgentOptions.env`). */
    env: NodeJS.ProcessEnv;
  },
) => Promise<RuntimeBackend>;

export interface StartAgentOptions {
  logger?: Logger;
  /** Reported with each heartbeat. */
  version?: string;
  /** Makes each runtime's backend; `createBackend` from ./backends by default. */
  createBackend: BackendFactory;
  /**
   * The agent's environment, read by its main: the proxy variables of its connections, and
   * what its local runtime's engines inherit. None by default.
   */
  env?: NodeJS.ProcessEnv;
}

export interface RunningAgent {
  /** Base URL of `/healthz` and `/metrics`, when served. */
  httpUrl: string | undefined;
  metrics: AgentMetrics;
  /** Resolves once the backends exist and the loops run. */
  ready: Promise<void>;
  /** Stops taking tasks, drains, and closes. Safe to call twice. */
  stop(): Promise<void>;
}

export async function startAgent(
  config: RunnerConfig,
  options: StartAgentOptions,
): Promise<RunningAgent> {
  const logger = options.logger ?? silentLogger;
  const connection = createControlPlaneClient({
    serverUrl: config.serverUrl,
    token: config.token,
    env: options.env ?? {},
  });
  // Failed calls by kind for the metrics (calls aborted by their own signal are not counted).
  const controlPlaneErrors = new ApiErrorTally();
  const client = countingErrors(connection.client, controlPlaneErrors);
  const metrics = createAgentMetrics({
    tasksHeld: () => dispatcher.held,
    apiErrors: () => apiErrorCounts(controlPlaneErrors.counts(), backends),
    warmPools: () => warmPoolStats(backends),
  });
  const stopLoops = new AbortController();
  const giveUp = new AbortController();
  const dispatcher = TaskDispatcher.create({
    concurrency: config.concurrency,
    queueSize: config.queueSize,
    onActiveChange: (n) => metrics.setActive(n),
  });
  const state = {
    stopping: false,
    lastPollAt: undefined as number | undefined,
    controlPlaneUrl: config.serverUrl,
    lastContactAt: undefined as number | undefined,
    contactError: undefined as string | undefined,
    startedAt: Date.now(),
    health: undefined as AgentHealth | undefined,
  };
  let http: AgentHttp | undefined;
  if (config.http !== undefined) {
    http = await startAgentHttp({
      ...config.http,
      metrics,
      stuckAfterMs: (config.pollWaitSeconds * 2 + 60) * 1000,
      status: () => ({ ...state, tasksHeld: dispatcher.held, buildsActive: dispatcher.active }),
    });
  }
  const backends: RuntimeBackend[] = [];
  const loops: Promise<void>[] = [];
  const ready = (async () => {
    const contact = {
      answered: () => {
        state.lastContactAt = Date.now();
        state.contactError = undefined;
      },
      failed: (reason: string) => void (state.contactError = reason),
    };
    const known = await fetchRuntimes(client, logger, stopLoops.signal, contact);
    if (stopLoops.signal.aborted) return;
    for (const target of config.runtimes) {
      const runtime = known.find((r) => r.name === target.name);
      if (runtime === undefined && !stopLoops.signal.aborted)
        logger.warn('runtime not assigned to this agent by the control plane', {
          runtime: target.name,
        });
      backends.push(
        await options.createBackend(target, {
          logger,
          config,
          runtime,
          env: options.env ?? {},
        }),
      );
    }
    const byName = new Map(backends.map((b) => [b.runtime, b]));
    const run = createTaskRunner({
      client,
      backends: byName,
      metrics,
      logger,
      signal: giveUp.signal,
    });
    dispatcher.setRunner(run);
    const signal = stopLoops.signal;
    const common = { client, metrics, logger, signal };
    loops.push(
      runTaskPoller({
        ...common,
        dispatcher,
        waitSeconds: config.pollWaitSeconds,
        onPolled: () => {
          state.lastPollAt = Date.now();
          contact.answered();
        },
        onPollFailed: contact.failed,
      }),
      runHeartbeat({
        ...common,
        backends,
        heartbeatMs: config.heartbeatMs,
        version: options.version ?? 'dev',
        onHealth: (health) => void (state.health = health),
      }),
    );
    for (const backend of backends)
      if (backend.monitor !== undefined)
        loops.push(
          backend.monitor({
            report: (buildId, body) =>
              deliverReport(
                () => client.call('agentInfrastructureError', { params: { buildId }, body }),
                { signal },
              ),
            reportCache: async (buildId, body) =>
              void (await deliverReport(
                () => client.call('agentBuildCache', { params: { buildId }, body }),
                { signal },
              )),
            signal,
            onPass: (seconds, phases) => {
              metrics.reconcileDone('pod-monitor', backend.runtime, seconds);
              metrics.setBuildPods(backend.runtime, phases);
            },
          }),
        );
    if (config.reapIntervalMs > 0)
      loops.push(
        runReaper({
          ...common,
          backends,
          intervalMs: config.reapIntervalMs,
          busyBuilds: () => dispatcher.busyBuilds(),
        }),
      );
    logger.info('agent started', {
      runtimes: backends.map((b) => `${b.runtime} (${b.kind})`).join(', '),
      concurrency: config.concurrency,
    });
  })();
  ready.catch((err: unknown) =>
    logger.error('agent failed to start', { reason: describeError(err) }),
  );

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      state.stopping = true;
      stopLoops.abort();
      await ready.catch(() => undefined);
      const drained = await dispatcher.drain(config.drainTimeoutMs);
      if (!drained) {
        logger.warn(
          'shutdown: tasks still running after the drain time; their leases will return them',
          {
            held: dispatcher.held,
          },
        );
        giveUp.abort();
      }
      await Promise.all(loops);
      // Each part is let go of whatever the others do: one that fails to close (its state
      // directory removed under the agent) must not keep the rest open, nor the process up.
      const closed = [
        ...(await Promise.allSettled(backends.map((b) => b.close()))),
        // The control plane's connection last: a backend may still report while it closes.
        ...(await Promise.allSettled([http?.close(), connection.close()])),
      ];
      const failed = closed.flatMap((c) => (c.status === 'rejected' ? [c.reason as unknown] : []));
      logger.info('agent stopped', { drained, closeFailures: failed.length });
      if (failed.length > 0) throw failed[0];
    })());
  return { httpUrl: http?.url, metrics, ready, stop };
}

/** The agent's runtimes as the control plane knows them, retried until it answers. */
async function fetchRuntimes(
  client: SluiceClient,
  logger: Logger,
  signal: AbortSignal,
  contact: { answered(): void; failed(reason: string): void },
): Promise<AgentRuntime[]> {
  for (let failures = 1; !signal.aborted; failures += 1) {
    try {
      const { runtimes } = await client.call('agentRuntimes', { signal });
      contact.answered();
      return runtimes;
    } catch (err) {
      if (signal.aborted) break;
      contact.failed(describeError(err));
      const wait = backoffMs(failures);
      logger.warn('cannot read the runtimes from the control plane', {
        reason: describeError(err),
        retryInMs: wait,
      });
      await sleep(wait, signal);
    }
  }
  return [];
}
