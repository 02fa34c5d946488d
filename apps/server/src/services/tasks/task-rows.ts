/**
 * Tasks as rows. A planned task that holds secret material (the build Secret with its engine
 * token and TLS keys) is stored as `{ sealed }`, AES-256-GCM with the server key and the task id
 * as associated data, and opened only when handed out, so the manifest is never at rest in the
 * clear and every hand-out of it is identical.
 * @module
 */
import { decryptSecret, encryptSecret } from '@sluice/pki';
import { sql } from '@sluice/db';
import type { Executor } from '@sluice/db';
import type { TaskType } from '@sluice/protocol';
import { json } from '../json-columns.js';
import type { EngineToken } from '../identity/identity-service.js';
import type { ServerContext } from '../server-context.js';
import { CHANNELS } from '../signals.js';

export interface PlannedTask {
  type: TaskType;
  spec: Record<string, unknown>;
  /** Holds secret material: stored encrypted, decrypted when handed out. */
  sealed?: boolean;
}

/**
 * The start tasks and the engine token they hold (stored when the build is elected), or why the
 * build cannot start (it then ends `error` with the reason).
 */
export type StartPlan =
  | { ok: true; tasks: PlannedTask[]; engineToken: EngineToken['row'] }
  | { ok: false; reason: string };

export interface InsertTasksOptions {
  accountId: string;
  buildId: string;
  runtime: string;
  tasks: readonly PlannedTask[];
  /** Position of the first task; the build's later tasks continue after its earlier ones. */
  firstPosition: number;
}

function associatedData(taskId: string): { associatedData: string } {
  return { associatedData: `task/${taskId}` };
}

/** Queues `tasks` in order and wakes the agents of the runtime. */
export function insertTasks(
  ctx: ServerContext,
  trx: Executor,
  options: InsertTasksOptions,
): Promise<void> {
  return insertBuildTasks(ctx, trx, [options]);
}

/** Queues the tasks of several builds in one statement and wakes each runtime's agents once. */
export async function insertBuildTasks(
  ctx: ServerContext,
  trx: Executor,
  builds: readonly InsertTasksOptions[],
): Promise<void> {
  const now = new Date(ctx.clock());
  const rows = plannedTaskRows(ctx, builds).map((row) => ({
    ...row,
    spec: json(row.spec),
    status: 'queued' as const,
    available_at: now,
    created_at: now,
    updated_at: now,
  }));
  if (rows.length === 0) return;
  // The agents' wake-up in the same statement: PostgreSQL sends one notification per runtime
  // (it drops a transaction's repeats of a channel and payload), after the commit.
  await trx
    .with('queued', (db) => db.insertInto('tasks').values(rows).returning('runtime'))
    .selectFrom('queued')
    .select(sql<string>`pg_notify(${CHANNELS.tasks}, queued.runtime)`.as('woken'))
    .execute();
}

/** The builds' tasks as rows to queue, in order: ids given, secret specs sealed. */
export function plannedTaskRows(ctx: ServerContext, builds: readonly InsertTasksOptions[]) {
  return builds.flatMap((options) =>
    options.tasks.map((task, index) => {
      const id = ctx.ids.next('tsk');
      const spec: Record<string, unknown> = task.sealed
        ? { sealed: encryptSecret(JSON.stringify(task.spec), ctx.secretKey, associatedData(id)) }
        : task.spec;
      return {
        id,
        account_id: options.accountId,
        build_id: options.buildId,
        runtime: options.runtime,
        type: task.type,
        spec,
        position: options.firstPosition + index,
      };
    }),
  );
}

/** A task row's spec as planned: sealed specs decrypted. */
export function unsealTaskSpec(
  ctx: ServerContext,
  row: { id: string; spec: unknown },
): Record<string, unknown> {
  const spec = row.spec as Record<string, unknown>;
  if (typeof spec.sealed !== 'string' || Object.keys(spec).length !== 1) return { ...spec };
  const text = decryptSecret(spec.sealed, ctx.secretKey, associatedData(row.id));
  return JSON.parse(text) as Record<string, unknown>;
}
