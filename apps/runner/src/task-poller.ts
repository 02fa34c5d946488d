/**
 * The long-poll loop: asks the control plane for as many tasks as there is room for, holds the
 * request open until one exists, and hands them to the dispatcher. Errors back off (1 s
 * doubling to 30 s, with jitter) and are counted; the loop never ends on its own.
 * @module
 */
import { describeError, isSluiceError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { SluiceClient } from '@sluice/protocol';
import { backoffDelay, sleep } from '@sluice/process';
import type { AgentMetrics } from './agent-metrics.js';
import type { TaskDispatcher } from './task-dispatcher.js';

export interface TaskPollerOptions {
  client: SluiceClient;
  dispatcher: TaskDispatcher;
  metrics: AgentMetrics;
  logger: Logger;
  waitSeconds: number;
  signal: AbortSignal;
  /** Called after each successful poll (health: the control plane answers). */
  onPolled?(): void;
  /** Called with the reason of each failed poll (readiness: it does not). */
  onPollFailed?(reason: string): void;
}

const MAX_PER_POLL = 200;
const BACKOFF_MAX_MS = 30_000;

export function backoffMs(failures: number, random = Math.random()): number {
  return backoffDelay(failures, { baseMs: 1000, maxMs: BACKOFF_MAX_MS, jitter: 0.2 }, random);
}

export async function runTaskPoller(options: TaskPollerOptions): Promise<void> {
  const { dispatcher, signal } = options;
  let failures = 0;
  while (!signal.aborted) {
    await dispatcher.waitForRoom(signal);
    if (signal.aborted) return;
    try {
      const { tasks } = await options.client.call('pollTasks', {
        query: { wait: options.waitSeconds, max: Math.min(MAX_PER_POLL, dispatcher.room) },
        signal,
      });
      if (failures > 0) options.logger.info('control plane reachable again', { failures });
      failures = 0;
      options.onPolled?.();
      dispatcher.submit(tasks);
    } catch (err) {
      if (signal.aborted) return;
      failures += 1;
      options.metrics.pollError();
      options.onPollFailed?.(describeError(err));
      const wait = backoffMs(failures);
      const hint =
        isSluiceError(err) && err.category === 'authentication' ? ' (check the agent token)' : '';
      options.logger.warn(`polling for tasks failed${hint}`, {
        reason: describeError(err),
        retryInMs: wait,
      });
      await sleep(wait, signal);
    }
  }
}
