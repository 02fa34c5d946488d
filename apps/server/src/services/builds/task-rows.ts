/**
 * Tasks as rows. A planned task that holds secret material (the build Secret with its engine
 * token and TLS keys) is stored as `{ sealed }`, AES-256-GCM with the server key and the task id
 * as associated data, and opened only when handed out, so the manifest is never at rest in the
 * clear and every hand-out of it is identical. The one writer of `tasks` (a boundary rule
 * refuses another): queued here, claimed, reported, superseded and dropped at a build's end.
 * @module
 */
import { decryptSecret, encryptSecret } from '@sluice/pki';
import { sql } from '@sluice/db';
import type { Executor, TaskRow } from '@sluice/db';
import type { TaskType } from '@sluice/protocol';
import { json } from '../json-columns.js';
import type { EngineToken } from '../identity/identity-service.js';
import type { ServerContext } from '../server-context.js';
import { CHANNELS } from '../pg-notify.js';

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

/**
 * The insert of the builds' tasks, queued at `now`, kept only for the builds `elected` selects
 * (their ids), returning each task's runtime: a piece of the store's election statement, which
 * wakes the runtimes' agents.
 */
export function queuedTasksInsert(
  ctx: ServerContext,
  builds: readonly InsertTasksOptions[],
  options: { now: Date; elected: ReturnType<typeof sql> },
): ReturnType<typeof sql> {
  const { now, elected } = options;
  const tasks = plannedTaskRows(ctx, builds);
  const column = <K extends keyof (typeof tasks)[number]>(key: K) => tasks.map((t) => t[key]);
  return sql`insert into tasks (id, account_id, build_id, runtime, type, spec, position, status,
      available_at, created_at, updated_at)
    select t.id, t.account_id, t.build_id, t.runtime, t.type, t.spec::jsonb, t.position,
      'queued', ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
    from unnest(${column('id')}::text[], ${column('account_id')}::text[],
      ${column('build_id')}::text[], ${column('runtime')}::text[],
      ${column('type')}::text[], ${tasks.map((t) => JSON.stringify(t.spec))}::text[],
      ${column('position')}::int[])
      as t(id, account_id, build_id, runtime, type, spec, position)
    where t.build_id in (${elected})
    returning runtime`;
}

/** The builds' tasks as rows to queue, in order: ids given, secret specs sealed. */
function plannedTaskRows(ctx: ServerContext, builds: readonly InsertTasksOptions[]) {
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

/** Whether any of the build's tasks ever reached an agent (claiming counts an attempt). */
export async function wasHandedOut(trx: Executor, buildId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('tasks')
    .select('id')
    .where('build_id', '=', buildId)
    .where('attempts', '>', 0)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A build's end: its start tasks still queued are dropped and leased ones never handed out
 * again, so nothing is created after `stop`, which is queued after every task it had.
 */
export async function endBuildTasks(
  ctx: ServerContext,
  trx: Executor,
  build: {
    accountId: string;
    buildId: string;
    runtime: string | null;
    stop: readonly PlannedTask[];
  },
): Promise<void> {
  const { last } = await trx
    .selectFrom('tasks')
    .select(sql<number>`coalesce(max(position), -1)`.as('last'))
    .where('build_id', '=', build.buildId)
    .executeTakeFirstOrThrow();
  // Delete before clearing leases: a claim that holds a queued row commits it as leased first.
  await trx
    .deleteFrom('tasks')
    .where('build_id', '=', build.buildId)
    .where('status', '=', 'queued')
    .execute();
  await trx
    .updateTable('tasks')
    .set({ lease_expires_at: null })
    .where('build_id', '=', build.buildId)
    .where('status', '=', 'leased')
    .execute();
  if (build.runtime === null || build.stop.length === 0) return;
  await insertTasks(ctx, trx, {
    accountId: build.accountId,
    buildId: build.buildId,
    runtime: build.runtime,
    tasks: build.stop,
    firstPosition: Number(last) + 1,
  });
}

/**
 * Tasks that have not run and never will (a build retried on new pods): failed with `reason`,
 * their revision moved on so a late report of them is refused.
 */
export async function supersedeTasks(
  trx: Executor,
  taskIds: readonly string[],
  options: { reason: string; now: Date },
): Promise<void> {
  await trx
    .updateTable('tasks')
    .set((eb) => ({
      status: 'failed',
      status_revision: eb('status_revision', '+', 1),
      lease_expires_at: null,
      last_error: options.reason,
      updated_at: options.now,
    }))
    .where('id', 'in', [...taskIds])
    .where('status', 'in', ['queued', 'leased'])
    .execute();
}

export interface ClaimTasksOptions {
  agentId: string;
  accountId: string;
  runtimes: readonly string[];
  max: number;
  now: Date;
  leaseUntil: Date;
}

/**
 * Leases up to `max` ready tasks of the account's `runtimes` (queued and available, or leased
 * and expired) to the agent, oldest first, skipping rows another claim holds.
 */
export async function claimTasks(trx: Executor, options: ClaimTasksOptions): Promise<TaskRow[]> {
  const { now } = options;
  return trx
    .updateTable('tasks')
    .set({
      status: 'leased',
      leased_by: options.agentId,
      agent_id: options.agentId,
      lease_expires_at: options.leaseUntil,
      attempts: sql`attempts + 1`,
      updated_at: now,
    })
    .where('id', 'in', (qb) =>
      qb
        .selectFrom('tasks')
        .select('id')
        .where('account_id', '=', options.accountId)
        .where('runtime', 'in', [...options.runtimes])
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'queued'), eb('available_at', '<=', now)]),
            eb.and([eb('status', '=', 'leased'), eb('lease_expires_at', '<', now)]),
          ]),
        )
        .orderBy('created_at')
        .orderBy('position')
        .limit(options.max)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
}

/** What an agent's report of a task sets: its outcome, at its next revision. */
export interface TaskOutcome {
  status: 'done' | 'queued' | 'failed';
  statusRevision: number;
  lastError: string | null;
  now: Date;
  /** A retry's time. */
  availableAt?: Date;
}

export async function recordTaskOutcome(
  trx: Executor,
  taskId: string,
  outcome: TaskOutcome,
): Promise<void> {
  await trx
    .updateTable('tasks')
    .set({
      status_revision: outcome.statusRevision,
      updated_at: outcome.now,
      lease_expires_at: null,
      last_error: outcome.lastError,
      status: outcome.status,
      ...(outcome.availableAt === undefined ? {} : { available_at: outcome.availableAt }),
    })
    .where('id', '=', taskId)
    .execute();
}
