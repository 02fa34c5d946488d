/**
 * Durable task dispatch. Tasks are rows; an agent's long-poll claims the ready ones of its
 * runtimes with `FOR UPDATE SKIP LOCKED` (never two agents at once), leased for a while so a
 * crashed agent's tasks come back; the agent acknowledges with the next status revision.
 * Retriable failures are retried with backoff, others fail the build with the reason. Sealed
 * specs (those holding an engine token: `RunEngine`, a Kubernetes build's Secret) are decrypted
 * when handed out.
 * @module
 */
import { ConflictError, NotFoundError } from '@sluice/errors';
import { backoffDelay } from '@sluice/process';
import type { Executor, TaskRow } from '@sluice/db';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { Task } from '@sluice/protocol';
import { BUILD_LABELS } from '@sluice/runtime-spec';
import type { BuildService } from '../builds/build-service.js';
import type { BuildStore } from '../builds/build-store.js';
import { CHANNELS } from '../pg-notify.js';
import { isoTime } from '../server-context.js';
import { buildStatus } from '../builds/build-rows.js';
import type { ServerContext } from '../server-context.js';
import { START_TASK_TYPES } from './task-planner.js';
import { claimTasks, recordTaskOutcome, unsealTaskSpec } from '../builds/task-rows.js';

export interface PollOptions {
  agentId: string;
  accountId: string;
  waitMs: number;
  max: number;
  signal?: AbortSignal;
}

export interface StatusReport {
  status: 'Success' | 'Error';
  statusRevision: number;
  isRetriable: boolean;
  reason?: string;
}

const BACKOFF_MAX_MS = 60_000;

export class TaskQueue {
  readonly #ctx: ServerContext;
  readonly #builds: BuildService;
  readonly #store: BuildStore;

  constructor(ctx: ServerContext, builds: BuildService, store: BuildStore) {
    this.#ctx = ctx;
    this.#builds = builds;
    this.#store = store;
  }

  async poll(options: PollOptions): Promise<Task[]> {
    const agent = await this.#ctx.database.db
      .selectFrom('agents')
      .select(['runtimes', 'account_id'])
      .where('id', '=', options.agentId)
      .executeTakeFirst();
    if (agent === undefined)
      throw new NotFoundError('SLUICE_AGENT_NOT_FOUND', `Agent ${options.agentId} does not exist`);
    const runtimes = agent.runtimes;
    const deadline = this.#ctx.clock() + options.waitMs;
    for (;;) {
      const since = runtimes.map((runtime) =>
        this.#ctx.signals.generation(CHANNELS.tasks, runtime),
      );
      const tasks = await this.#claim(options, runtimes);
      const left = deadline - this.#ctx.clock();
      if (tasks.length > 0 || left <= 0 || options.signal?.aborted || runtimes.length === 0)
        return tasks;
      await Promise.race(
        runtimes.map((runtime, i) =>
          this.#ctx.signals.wait(CHANNELS.tasks, runtime, Math.min(left, 5_000), {
            signal: options.signal,
            since: since[i],
          }),
        ),
      );
    }
  }

  async #claim(options: PollOptions, runtimes: string[]): Promise<Task[]> {
    if (runtimes.length === 0) return [];
    // Seconds each build waited for its first hand-out, counted once the hand-out commits.
    const firstHandOut = new Map<string, number>();
    const tasks = await this.#ctx.database.db.transaction().execute(async (trx) => {
      const now = new Date(this.#ctx.clock());
      const leaseUntil = new Date(now.getTime() + this.#ctx.config.taskLeaseMs);
      const rows = await claimTasks(trx, {
        agentId: options.agentId,
        accountId: options.accountId,
        runtimes,
        max: options.max,
        now,
        leaseUntil,
      });
      rows.sort(
        (a, b) => a.created_at.getTime() - b.created_at.getTime() || a.position - b.position,
      );
      const tasks: Task[] = [];
      for (const row of rows)
        tasks.push(await this.#handOut(trx, row, options.agentId, firstHandOut));
      return tasks;
    });
    for (const seconds of firstHandOut.values()) this.#ctx.metrics.buildDispatched(seconds);
    return tasks;
  }

  async #handOut(
    trx: Executor,
    row: TaskRow,
    agentId: string,
    firstHandOut: Map<string, number>,
  ): Promise<Task> {
    if (row.build_id !== null && START_TASK_TYPES.includes(row.type)) {
      const now = this.#ctx.clock();
      const dispatchedAt = new Date(now).toISOString();
      const build = await this.#store.stampDispatched(trx, row.build_id, agentId, dispatchedAt);
      // keepFirstTiming kept an earlier stamp unless this is the build's first hand-out.
      const first = (build?.timing as { dispatchedAt?: unknown } | undefined)?.dispatchedAt;
      if (build !== undefined && first === dispatchedAt && !firstHandOut.has(row.build_id))
        firstHandOut.set(row.build_id, (now - build.created_at.getTime()) / 1000);
    }
    return {
      id: row.id,
      type: row.type as Task['type'],
      buildId: row.build_id,
      runtime: row.runtime,
      position: row.position,
      statusRevision: row.status_revision,
      attempt: row.attempts,
      spec: unsealTaskSpec(this.#ctx, row),
      createdAt: isoTime(row.created_at) ?? '',
    };
  }

  /**
   * Records an agent's report. A start task of a build that already finished (a late report) is
   * recorded and nothing else: it is not retried, and it fails nothing.
   */
  async report(agentId: string, taskId: string, report: StatusReport): Promise<void> {
    const failed = await this.#builds.transaction((trx) =>
      this.#record(trx, agentId, taskId, report),
    );
    if (failed) this.#ctx.log.warn('build failed: its task could not be carried out', { taskId });
  }

  /** Writes the report; whether it failed the build. */
  async #record(
    trx: Executor,
    agentId: string,
    taskId: string,
    report: StatusReport,
  ): Promise<boolean> {
    const row = await this.#reportedRow(trx, agentId, taskId, report);
    const late = await this.#isLate(trx, row);
    const now = new Date(this.#ctx.clock());
    const set = (fields: { status: 'done' | 'queued' | 'failed'; availableAt?: Date }) =>
      recordTaskOutcome(trx, taskId, {
        statusRevision: report.statusRevision,
        now,
        lastError: report.reason ?? null,
        ...fields,
      });
    if (report.status === 'Success') {
      await set({ status: 'done' });
      if (!late && row.build_id !== null && createsEngine(row))
        await this.#store.stampObjectsCreated(trx, row.build_id);
      return false;
    }
    if (!late && report.isRetriable && row.attempts < row.max_attempts) {
      const delay = backoffDelay(row.attempts, { baseMs: 1000, maxMs: BACKOFF_MAX_MS });
      await set({ status: 'queued', availableAt: new Date(now.getTime() + delay) });
      setTimeout(() => void this.#wakeLater(row.runtime), delay + 10).unref();
      return false;
    }
    await set({ status: 'failed' });
    if (row.build_id === null || late) return false;
    const why = `Task ${row.type} failed after ${row.attempts} attempt(s): ${report.reason ?? 'no reason given'}`;
    return this.#builds.finish(trx, row.build_id, 'error', why);
  }

  async #reportedRow(
    trx: Executor,
    agentId: string,
    taskId: string,
    report: StatusReport,
  ): Promise<TaskRow> {
    const row = await trx
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', taskId)
      .forUpdate()
      .executeTakeFirst();
    if (row === undefined || row.agent_id !== agentId)
      throw new NotFoundError(
        'SLUICE_TASK_NOT_FOUND',
        `Task ${taskId} is not one of this agent's tasks`,
      );
    if (report.statusRevision !== row.status_revision + 1) {
      throw new ConflictError(
        'SLUICE_TASK_STALE_REVISION',
        `Task ${taskId} is at status revision ${row.status_revision}; report ${row.status_revision + 1}, got ${report.statusRevision}`,
      );
    }
    return row;
  }

  /** A start task whose build already finished: its stop tasks are queued or done. */
  async #isLate(trx: Executor, row: TaskRow): Promise<boolean> {
    if (row.build_id === null || !START_TASK_TYPES.includes(row.type)) return false;
    const build = await buildStatus(trx, row.build_id);
    return build === undefined || FINISHED_STATUSES.includes(build.status);
  }

  async #wakeLater(runtime: string): Promise<void> {
    await this.#ctx.signals.publish(this.#ctx.database.db, CHANNELS.tasks, runtime);
  }
}

/** The task whose success means the build's engine (process or pod) exists. */
function createsEngine(row: TaskRow): boolean {
  if (row.type === 'RunEngine') return true;
  if (row.type !== 'CreatePod') return false;
  const labels = (row.spec as { metadata?: { labels?: Record<string, string> } }).metadata?.labels;
  return labels?.[BUILD_LABELS.component] === 'engine';
}
