/**
 * The heartbeat: every `heartbeatMs` (and once at start) the agent asks each runtime for its
 * health (API server reachable, permissions present; Docker reachable for the local runtime)
 * and sends it to the control plane, which shows it on the agent. A check that hangs counts as
 * failed after `checkTimeoutMs`. Errors are logged; the next beat tries again. When the agent
 * stops, a last report says so.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { AgentHealth, RuntimeHealth, SluiceClient } from '@sluice/protocol';
import { sleep } from '@sluice/process';
import type { AgentMetrics } from './agent-metrics.js';
import type { RuntimeBackend } from './runtime-backend.js';

export interface HealthReportOptions {
  client: SluiceClient;
  backends: readonly RuntimeBackend[];
  metrics: AgentMetrics;
  logger: Logger;
  heartbeatMs: number;
  version: string;
  checkTimeoutMs?: number;
  signal: AbortSignal;
  onHealth?(health: AgentHealth): void;
}

async function checkRuntimes(
  backends: readonly RuntimeBackend[],
  timeoutMs: number,
): Promise<AgentHealth> {
  const runtimes = await Promise.all(backends.map((b) => checkOne(b, timeoutMs)));
  const sick = runtimes.filter((r) => !r.healthy);
  const message =
    sick.length === 0
      ? `All ${runtimes.length} runtime(s) healthy`
      : sick.map((r) => `${r.name}: ${r.message ?? 'unhealthy'}`).join('; ');
  return { healthy: sick.length === 0, message, runtimes };
}

async function checkOne(backend: RuntimeBackend, timeoutMs: number): Promise<RuntimeHealth> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<RuntimeHealth>((resolve) => {
    timer = setTimeout(() => {
      const message = `The health check did not answer within ${timeoutMs} ms`;
      resolve({ name: backend.runtime, healthy: false, message });
    }, timeoutMs);
  });
  try {
    const health = await Promise.race([backend.health(), timeout]);
    const warmPool = backend.warmPool?.();
    return warmPool === undefined ? health : { ...health, warmPool };
  } catch (err) {
    return { name: backend.runtime, healthy: false, message: describeError(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** How long the report that the agent stopped may take: the pod's grace period is short. */
const STOPPED_REPORT_MS = 3000;

/**
 * Runs until the signal aborts, then reports once that the agent stopped (its last health with
 * `stoppedAt`), so `runner info` shows it offline at once rather than a minute later.
 */
export async function runHeartbeat(options: HealthReportOptions): Promise<void> {
  const log = options.logger.child({ component: 'heartbeat' });
  let lastHealthy: boolean | undefined;
  let last: AgentHealth = { healthy: false };
  while (!options.signal.aborted) {
    const health = await checkRuntimes(options.backends, options.checkTimeoutMs ?? 10_000);
    last = health;
    options.onHealth?.(health);
    for (const runtime of health.runtimes ?? [])
      options.metrics.setRuntimeHealthy(runtime.name, runtime.healthy);
    if (health.healthy !== lastHealthy) {
      if (health.healthy) log.info('runtimes healthy', { message: health.message });
      else log.warn('runtime unhealthy', { message: health.message });
      lastHealthy = health.healthy;
    }
    try {
      await options.client.call('agentHeartbeat', {
        body: { health, version: options.version },
        signal: options.signal,
      });
    } catch (err) {
      if (!options.signal.aborted) log.warn('heartbeat failed', { reason: describeError(err) });
    }
    await sleep(options.heartbeatMs, options.signal);
  }
  const stopped = { ...last, message: 'The agent stopped', stoppedAt: new Date().toISOString() };
  await options.client
    .call('agentHeartbeat', {
      body: { health: stopped, version: options.version },
      signal: AbortSignal.timeout(STOPPED_REPORT_MS),
    })
    .catch((err: unknown) =>
      log.warn('could not report that the agent stopped', { reason: describeError(err) }),
    );
}
