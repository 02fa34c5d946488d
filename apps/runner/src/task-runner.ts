/**
 * Carries out one task on its runtime's backend and reports the outcome with the next status
 * revision (reference §1.4): `Success`, or `Error` with the retriable flag of the failure; the
 * retry itself is the control plane's decision. Reporting is retried while the control plane
 * is unreachable; if it never answers, the task's lease runs out and the task comes back,
 * which is safe because every task is idempotent.
 * @module
 */
import { describeError, isSluiceError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type { SluiceClient, Task } from '@sluice/protocol';
import { backoffDelay, sleep } from '@sluice/process';
import type { AgentMetrics, TaskOutcome } from './agent-metrics.js';
import { TaskFailure } from './runtime-backend.js';
import type { RuntimeBackend } from './runtime-backend.js';

export interface TaskRunnerOptions {
  client: SluiceClient;
  backends: ReadonlyMap<string, RuntimeBackend>;
  metrics: AgentMetrics;
  logger: Logger;
  /** Aborted when the agent gives up on running tasks (shutdown past its drain time). */
  signal: AbortSignal;
  /** Attempts to deliver one report; the first retry waits 500 ms, doubling. */
  reportAttempts?: number;
}

interface Outcome {
  status: 'Success' | 'Error';
  isRetriable: boolean;
  reason?: string;
}

export function createTaskRunner(options: TaskRunnerOptions): (task: Task) => Promise<void> {
  return async (task) => {
    const started = performance.now();
    const log = options.logger.child({ taskId: task.id, type: task.type, buildId: task.buildId });
    const outcome = await carryOut(task, options);
    const label: TaskOutcome =
      outcome.status === 'Success' ? 'success' : outcome.isRetriable ? 'retriable-error' : 'error';
    if (outcome.status === 'Error') log.warn('task failed', { reason: outcome.reason, label });
    await report(task, outcome, options, log);
    options.metrics.taskDone(task.type, label, (performance.now() - started) / 1000);
  };
}

async function carryOut(task: Task, options: TaskRunnerOptions): Promise<Outcome> {
  const backend = options.backends.get(task.runtime);
  if (backend === undefined) {
    const served = [...options.backends.keys()].join(', ') || 'none';
    const reason = `This agent does not serve runtime "${task.runtime}" (it serves: ${served})`;
    return { status: 'Error', isRetriable: false, reason };
  }
  try {
    await backend.apply(task, options.signal);
    return { status: 'Success', isRetriable: false };
  } catch (err) {
    if (err instanceof TaskFailure)
      return { status: 'Error', isRetriable: err.retriable, reason: err.message };
    return { status: 'Error', isRetriable: true, reason: describeError(err) };
  }
}

async function report(task: Task, outcome: Outcome, options: TaskRunnerOptions, log: Logger) {
  const attempts = options.reportAttempts ?? 6;
  const body = {
    ...outcome,
    statusRevision: task.statusRevision + 1,
    occurredAt: new Date().toISOString(),
  };
  for (let attempt = 1; ; attempt += 1) {
    try {
      await options.client.call('reportTaskStatus', { params: { taskId: task.id }, body });
      return;
    } catch (err) {
      // Someone reported first (a stale revision) or the task is gone: nothing left to say.
      if (isSluiceError(err) && ['conflict', 'not-found', 'input'].includes(err.category)) {
        log.info('task report not needed', { reason: describeError(err) });
        return;
      }
      if (attempt >= attempts || options.signal.aborted) {
        log.warn('task report not delivered; the task returns when its lease ends', {
          reason: describeError(err),
        });
        return;
      }
      await sleep(backoffDelay(attempt, { baseMs: 500 }), options.signal);
    }
  }
}
