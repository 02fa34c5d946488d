/**
 * The one place a build ends, whatever ended it (its engine, a cancel, a task that failed for
 * good, the silent-engine reaper, a runtime that cannot run it): the final state, its steps
 * closed, its engine token revoked, and its objects removed. Start tasks still queued are
 * dropped and leased ones are never handed out again, so nothing is created after the stop
 * tasks; the stop tasks are queued when any start task reached an agent, so a build's pods and
 * volume claim never outlive it.
 * @module
 */
import { sql } from '@sluice/db';
import type { Executor } from '@sluice/db';
import type { BuildStatus } from '@sluice/protocol';
import type { BuildStore, StopIntent } from './build-store.js';
import type { IdentityService } from '../identity/identity-service.js';
import { stopIntent } from './build-rows.js';
import type { ServerContext } from '../server-context.js';
import { CHANNELS } from '../signals.js';
import type { TaskPlanner } from '../tasks/task-planner.js';
import { insertTasks } from '../tasks/task-rows.js';

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
 * How a build the engine reports finished ends: as reported, except that an engine which ends
 * `terminated` after the control plane asked it to stop for a workflow limit ends the build
 * with that limit's status and reason instead of its own "cancelled".
 */
export async function reportedEnd(
  trx: Executor,
  buildId: string,
  reported: { status: BuildStatus; reason: string | null },
): Promise<{ status: BuildStatus; reason: string | null }> {
  if (reported.status !== 'terminated') return reported;
  const row = await stopIntent(trx, buildId);
  if (row?.stop_status == null) return reported;
  return { status: row.stop_status, reason: row.stop_reason };
}

interface FinishedBuild {
  accountId: string;
  buildId: string;
  runtime: string | null;
}

export class BuildFinisher {
  readonly #ctx: ServerContext;
  readonly #identity: IdentityService;
  readonly #planner: TaskPlanner;
  readonly #store: BuildStore;

  constructor(
    ctx: ServerContext,
    identity: IdentityService,
    planner: TaskPlanner,
    store: BuildStore,
  ) {
    this.#ctx = ctx;
    this.#store = store;
    this.#identity = identity;
    this.#planner = planner;
  }

  /** Ends the build; false (and nothing done) when it had already finished. */
  async finish(
    trx: Executor,
    buildId: string,
    status: BuildStatus,
    reason: string | null,
  ): Promise<boolean> {
    const ended = await this.#store.finish(trx, buildId, status, reason);
    if (ended === undefined) return false;
    this.#ctx.metrics.buildFinished(status);
    await this.#closeSteps(trx, buildId, ended.finishedAt);
    await this.#identity.revokeSubject(trx, buildId);
    await this.#stopObjects(trx, { accountId: ended.accountId, buildId, runtime: ended.runtime });
    return true;
  }

  /**
   * Asks the engine of a started build to stop through its control channel (what a cancel
   * does): it stops its containers and reports the end itself. The request is recorded with
   * the status and reason the build is to end with (none for a cancel: the engine's own), so
   * the terminating limits can end a build whose engine does not stop. False when the build is
   * not running or a stop was already asked for.
   */
  async requestStop(trx: Executor, buildId: string, intent: StopIntent | null): Promise<boolean> {
    if (!(await this.#store.requestStop(trx, buildId, intent))) return false;
    await trx.insertInto('build_control').values({ build_id: buildId, kind: 'cancel' }).execute();
    await this.#ctx.signals.publish(trx, CHANNELS.control, buildId);
    return true;
  }

  async #closeSteps(trx: Executor, buildId: string, now: Date): Promise<void> {
    await trx
      .updateTable('build_steps')
      .set({ status: 'skipped' })
      .where('build_id', '=', buildId)
      .where('status', '=', 'pending')
      .execute();
    await trx
      .updateTable('build_steps')
      .set({ status: 'terminated', finished_at: now })
      .where('build_id', '=', buildId)
      .where('status', 'in', ['running', 'pending-approval'])
      .execute();
  }

  async #stopObjects(trx: Executor, build: FinishedBuild): Promise<void> {
    const runtime = build.runtime;
    const stop =
      runtime !== null && (await wasHandedOut(trx, build.buildId))
        ? await this.#planner.planStop(trx, { ...build, runtime })
        : [];
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
    if (runtime === null || stop.length === 0) return;
    await insertTasks(this.#ctx, trx, {
      accountId: build.accountId,
      buildId: build.buildId,
      runtime,
      tasks: stop,
      firstPosition: Number(last) + 1,
    });
  }
}
