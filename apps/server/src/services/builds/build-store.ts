/**
 * The store of the build aggregate: a build with its steps, its control messages, its tasks and
 * its engine token change together, through here. It owns the writes of `builds` (a test and a
 * boundary rule refuse another writer) and composes those of the other tables from their one
 * writer each (`build-steps.ts`, `build-control.ts`, `task-rows.ts`, `engine-tokens.ts`).
 * Status moves are checked against `build-transitions.ts`: each write moves only from the
 * statuses its transition allows, and a move's effects are carried out in one exhaustive
 * `switch` (`build-effects.ts`), so a new effect fails the type check instead of being
 * skipped. Writes take the caller's executor; `transaction` runs one and, after its commit,
 * waits for the scheduling passes its writes announced, so a request answers with what the
 * pass did.
 * @module
 */
import { jsonb, sql } from '@sluice/db';
import type { Executor, JsonObject, Schema, Transaction } from '@sluice/db';
import { InputError } from '@sluice/errors';
import { applyAnnotationChanges, FINISHED_STATUSES } from '@sluice/protocol';
import type { AnnotationChange, BuildAnnotations, BuildStatus } from '@sluice/protocol';
import { effectsOf, sourcesOf } from './build-transitions.js';
import type { BuildTransition } from './build-transitions.js';
import { carryOutEffect } from './build-effects.js';
import type { EffectDeps, StopPlanner } from './build-effects.js';
import { keepFirstTiming, mergeTiming } from '../json-columns.js';
import type { SchedulingWakeups } from '../scheduling-wakeups.js';
import { insertPlannedSteps, plannedStepsInsert } from './build-steps.js';
import { agentsBuild } from './build-rows.js';
import type { PlannedStep } from '../parsing/planned-steps.js';
import { sendCancel } from './build-control.js';
import { engineTokensDelete, engineTokensInsert } from './engine-tokens.js';
import type { ServerContext } from '../server-context.js';
import { queuedTasksInsert } from './task-rows.js';
import type { InsertTasksOptions } from './task-rows.js';
import type { EngineToken } from '../identity/identity-service.js';
import { CHANNELS } from '../pg-notify.js';

/** How a stop the control plane asked for is to end the build (none: the engine's own end). */
export interface StopIntent {
  status: 'terminated' | 'error';
  reason: string;
}

/** A build to elect: its runtime, its start tasks and the engine token they hold. */
export interface ElectedStart extends InsertTasksOptions {
  engineToken?: EngineToken['row'];
}

/** A build as created: pending, with what its trigger gave it. */
export interface NewBuild {
  id: string;
  accountId: string;
  pipelineId: string;
  number: number;
  trigger: string;
  initiator: string | null;
  branch: string | null;
  revision: string | null;
  facts: JsonObject;
  variables: Record<string, string>;
  secretsEncrypted: string | null;
  /** The names of its secrets, shown as `****`. */
  secretNames: string[];
  retryOf: string | null;
  runtime: string | null;
  /** The pipeline's `stages:`, in order. */
  stages: string[];
  /** The definition it runs, when the pipeline stores it; null when its engine reads it. */
  yaml: string | null;
  /** Where its engine reads the definition, for a pipeline whose definition is in its repository. */
  specTemplate: JsonObject | null;
  createdAt: Date;
}

/**
 * Which finished builds a delete takes: those of pipelines, one build, or a pipeline's past its
 * retention (created before a time, or older than its `keepNewest` newest builds).
 */
export type BuildsToDelete =
  | { pipelineIds: readonly string[] }
  | { buildId: string }
  | { pipelineId: string; createdBefore: Date }
  | { pipelineId: string; keepNewest: number };

/** What a delete of builds removed. */
export interface DeletedBuilds {
  builds: number;
  logChunks: number;
  logBytes: number;
}

/** The definition an engine read from the repository, with the steps it plans. */
export interface ReadDefinition {
  yaml: string;
  sha: string;
  stages: string[];
  steps: readonly PlannedStep[];
}

export class BuildStore {
  readonly #ctx: ServerContext;
  readonly #wakeups: SchedulingWakeups;
  readonly #effects: EffectDeps;

  constructor(ctx: ServerContext, wakeups: SchedulingWakeups, stops: StopPlanner) {
    this.#ctx = ctx;
    this.#wakeups = wakeups;
    this.#effects = { ctx, wakeups, stops };
  }

  /**
   * Runs `fn` in a transaction, then waits for the scheduling passes its writes started. With
   * `translateErrors`, database errors come out as Sluice errors (`withTransaction`).
   */
  transaction<T>(
    fn: (trx: Transaction<Schema>) => Promise<T>,
    options: { translateErrors?: boolean } = {},
  ): Promise<T> {
    return this.#wakeups.transaction(this.#ctx.database.db, fn, options);
  }

  /** A new pending build in the caller's transaction: it may take a free place. */
  async insert(trx: Executor, build: NewBuild): Promise<void> {
    await trx.insertInto('builds').values(newBuildRow(build)).execute();
    await this.#wakeups.announce(trx, build.accountId);
  }

  /**
   * A new pending build and its planned steps in one statement (atomic without a transaction,
   * and one round trip where a transaction took five), then waits for the scheduling pass it
   * woke, so the caller answers with the build elected.
   */
  async create(build: NewBuild, steps: readonly PlannedStep[]): Promise<void> {
    const wake = this.#wakeups.statementWakeUp(build.accountId);
    const db = this.#ctx.database.db;
    const insert = db.insertInto('builds').values(newBuildRow(build)).returning('id');
    const withSteps =
      steps.length === 0 ? sql`` : sql`, steps as (${plannedStepsInsert(db, build.id, steps)})`;
    await sql`with build as (${insert})${withSteps}
      select pg_notify(${wake.channel}, ${wake.key}) as woken from build`.execute(db);
    await this.#wakeups.settled([wake.key]);
  }

  /**
   * Records the definition the build's engine read from the repository, with its commit, its
   * stages and its planned steps; once: false when the build already has one (a retried report).
   */
  async recordDefinition(buildId: string, read: ReadDefinition): Promise<boolean> {
    return this.#ctx.database.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('builds')
        .set({ yaml: read.yaml, yaml_revision: read.sha, stages: jsonb(read.stages) })
        .where('id', '=', buildId)
        .where('yaml', 'is', null)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await insertPlannedSteps(trx, buildId, read.steps);
      return true;
    });
  }

  /** Why pending builds still wait, in one statement. */
  async setWaitingReasons(
    trx: Executor,
    builds: readonly { buildId: string; reason: string }[],
  ): Promise<void> {
    if (builds.length === 0) return;
    await sql`update builds b set reason = w.reason
      from unnest(${builds.map((b) => b.buildId)}::text[], ${builds.map((b) => b.reason)}::text[])
        as w(id, reason)
      where b.id = w.id and b.status in (${sql.join(sourcesOf('elect'))})`.execute(trx);
  }

  /**
   * Pending builds elected on their runtimes, with their engine tokens stored, their start
   * tasks queued and the agents of each runtime woken, in one statement however many builds:
   * the values go as arrays, so its text (and so its prepared statement) is the same for any
   * number. A build no longer pending (cancelled since the pass read it) gets neither tasks nor
   * token. How many were elected.
   */
  async electStarts(trx: Executor, starts: readonly ElectedStart[]): Promise<number> {
    if (starts.length === 0) return 0;
    const now = new Date(this.#ctx.clock());
    const tokens = starts.flatMap((start) => (start.engineToken ? [start.engineToken] : []));
    const elected = sql`select id from elected`;
    const { rows } = await sql<{ elected: number }>`with elected as (
        update builds b set status = 'elected', runtime_environment = c.runtime, reason = null,
          updated_at = ${now}::timestamptz,
          timing = b.timing || ${JSON.stringify({ electedAt: now.toISOString() })}::jsonb
        from unnest(${starts.map((s) => s.buildId)}::text[], ${starts.map((s) => s.runtime)}::text[])
          as c(id, runtime)
        where b.id = c.id and b.status in (${sql.join(sourcesOf('elect'))})
        returning b.id),
      tokens as (${engineTokensInsert(tokens, elected)}),
      queued as (${queuedTasksInsert(this.#ctx, starts, { now, elected })})
      select (select count(*)::int from elected) as elected,
        (select count(pg_notify(${CHANNELS.tasks}, r.runtime))::int
          from (select distinct runtime from queued) r) as woken`.execute(trx);
    return rows[0]?.elected ?? 0;
  }

  /** The engine started (`at`: its own time, kept in `timing`). */
  async start(trx: Executor, buildId: string, at: string): Promise<void> {
    await this.#move(trx, buildId, 'start')
      .set({
        status: 'running',
        engine_started_at: new Date(this.#ctx.clock()),
        timing: mergeTiming({ engineStartedAt: at }),
      })
      .execute();
  }

  async awaitApproval(trx: Executor, buildId: string): Promise<void> {
    await this.#move(trx, buildId, 'await-approval')
      .set({ status: 'pending-approval', updated_at: new Date(this.#ctx.clock()) })
      .execute();
  }

  /** The build runs again once no step of it waits for approval. */
  async resumeWhenAnswered(trx: Executor, buildId: string, now: Date): Promise<void> {
    await this.#move(trx, buildId, 'resume')
      .set({ status: 'running', updated_at: now })
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('build_steps')
              .select('name')
              .where('build_id', '=', buildId)
              .where('status', '=', 'pending-approval'),
          ),
        ),
      )
      .execute();
  }

  /**
   * Ends the build with `status`, whatever ended it (its engine, a cancel, a task that failed
   * for good, the silent-engine reaper, a runtime that cannot run it), and carries out every
   * effect of the move; false (and nothing done) when it had already finished.
   */
  async finish(
    trx: Executor,
    buildId: string,
    status: BuildStatus,
    reason: string | null,
  ): Promise<boolean> {
    const now = new Date(this.#ctx.clock());
    const row = await this.#move(trx, buildId, 'finish')
      .set({
        status,
        reason,
        finished_at: now,
        updated_at: now,
        timing: mergeTiming({ finishedAt: now.toISOString() }),
      })
      .returning(['account_id', 'runtime_environment'])
      .executeTakeFirst();
    if (row === undefined) return false;
    this.#ctx.metrics.buildFinished(status);
    const ended = { buildId, accountId: row.account_id, runtime: row.runtime_environment, at: now };
    for (const effect of effectsOf('finish'))
      await carryOutEffect(trx, effect, ended, this.#effects);
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
    const row = await trx
      .updateTable('builds')
      .set({
        stop_requested_at: new Date(this.#ctx.clock()),
        stop_status: intent?.status ?? null,
        stop_reason: intent?.reason ?? null,
      })
      .where('id', '=', buildId)
      .where('status', 'in', ['running', 'pending-approval'])
      .where('stop_requested_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (row === undefined) return false;
    await sendCancel(this.#ctx.signals, trx, buildId);
    return true;
  }

  /** A build that waits for new pods after an infrastructure error says so. */
  async markRetrying(trx: Executor, buildId: string, reason: string, now: Date): Promise<void> {
    await trx
      .updateTable('builds')
      .set({ reason, updated_at: now })
      .where('id', '=', buildId)
      .execute();
  }

  /**
   * Marks a running build unhealthy (`mark`, starting with `prefix`) or healthy again (null),
   * leaving any other reason alone; false when nothing changed.
   */
  async markHealth(buildId: string, mark: string | null, prefix: string): Promise<boolean> {
    const result = await this.#ctx.database.db
      .updateTable('builds')
      .set({ reason: mark })
      .where('id', '=', buildId)
      .where('status', 'in', ['running', 'pending-approval'])
      .where((eb) => eb.or([eb('reason', 'is', null), eb('reason', 'like', `${prefix}%`)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Any engine report keeps it alive; an event also counts as output (workflow limits). */
  async touch(executor: Executor, buildId: string, options: { event?: boolean } = {}) {
    const now = new Date(this.#ctx.clock());
    await executor
      .updateTable('builds')
      .set(
        options.event
          ? { engine_heartbeat_at: now, engine_event_at: now }
          : { engine_heartbeat_at: now },
      )
      .where('id', '=', buildId)
      .execute();
  }

  /**
   * The cache record an agent read off the build's claim, for a build of the account on one of
   * `runtimes` or dispatched to `agentId`; a later report replaces it. False when the build is
   * no such build.
   */
  async recordCache(
    executor: Executor,
    where: { accountId: string; agentId: string; runtimes: readonly string[]; buildId: string },
    cache: JsonObject,
  ): Promise<boolean> {
    const result = await executor
      .updateTable('builds')
      .set({ cache: jsonb(cache) })
      .where('id', '=', where.buildId)
      .where('account_id', '=', where.accountId)
      .where(agentsBuild(where))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Keeps an engine's cache record for a build that has none (an agent's is kept instead). */
  async recordEngineCache(trx: Executor, buildId: string, cache: JsonObject): Promise<void> {
    await trx
      .updateTable('builds')
      .set({ cache: jsonb(cache) })
      .where('id', '=', buildId)
      .where('cache', 'is', null)
      .execute();
  }

  /**
   * Applies what a step's post-step operations set and unset (an engine's `annotations` event)
   * to the build's annotations, in the caller's transaction; the row is locked while it is read
   * and written. An `InputError` names a change the limits refuse, and nothing is written.
   */
  async annotate(
    trx: Executor,
    buildId: string,
    changes: readonly AnnotationChange[],
  ): Promise<void> {
    const row = await trx
      .selectFrom('builds')
      .select(['annotations', 'image_annotations'])
      .where('id', '=', buildId)
      .forUpdate()
      .executeTakeFirst();
    if (row === undefined) return;
    const current = {
      annotations: row.annotations as BuildAnnotations['annotations'],
      imageAnnotations: row.image_annotations as BuildAnnotations['imageAnnotations'],
    };
    const result = applyAnnotationChanges(current, changes);
    if (!result.ok)
      throw new InputError('SLUICE_BUILD_ANNOTATIONS_INVALID', result.problem, {
        details: { buildId },
      });
    await trx
      .updateTable('builds')
      .set({
        annotations: jsonb(result.value.annotations),
        image_annotations: jsonb(result.value.imageAnnotations as JsonObject),
      })
      .where('id', '=', buildId)
      .execute();
  }

  /**
   * Sets one annotation the server itself writes (not a step's: the limits on a step's
   * annotations do not apply, so it is never refused).
   */
  async note(trx: Executor, buildId: string, key: string, value: string): Promise<void> {
    await trx
      .updateTable('builds')
      .set({
        annotations: sql<JsonObject>`annotations || ${JSON.stringify({ [key]: value })}::jsonb`,
      })
      .where('id', '=', buildId)
      .execute();
  }

  async stampFirstStep(trx: Executor, buildId: string, at: string): Promise<void> {
    await this.#stamp(trx, buildId, { firstStepStartedAt: at });
  }

  async stampObjectsCreated(trx: Executor, buildId: string): Promise<void> {
    await this.#stamp(trx, buildId, {
      objectsCreatedAt: new Date(this.#ctx.clock()).toISOString(),
    });
  }

  async stampPostSteps(trx: Executor, buildId: string): Promise<void> {
    await trx
      .updateTable('builds')
      .set({ post_steps_started_at: new Date(this.#ctx.clock()) })
      .where('id', '=', buildId)
      .where('post_steps_started_at', 'is', null)
      .execute();
  }

  /** A start task handed to `agentId`: the agent recorded, the first hand-out's time kept. */
  stampDispatched(trx: Executor, buildId: string, agentId: string, dispatchedAt: string) {
    return trx
      .updateTable('builds')
      .set({ agent_id: agentId, timing: keepFirstTiming({ dispatchedAt }) })
      .where('id', '=', buildId)
      .returning(['created_at', 'timing'])
      .executeTakeFirst();
  }

  async #stamp(trx: Executor, buildId: string, stamps: Record<string, string>): Promise<void> {
    await trx
      .updateTable('builds')
      .set({ timing: keepFirstTiming(stamps) })
      .where('id', '=', buildId)
      .execute();
  }

  /**
   * Deletes up to `limit` finished builds of `which`, oldest first, in one statement (a short
   * transaction of its own unless `executor` is the caller's): with their engine tokens, and
   * through the foreign keys' cascades their steps, log chunks, control rows (approvals,
   * cancels), tasks and commit status; a webhook delivery that started one keeps its id without
   * it. A build another transaction holds is skipped (SKIP LOCKED), so two servers' retention
   * passes share the work and neither waits; with `wait`, it is waited for. A build that has not
   * finished is never taken.
   */
  async deleteFinished(
    executor: Executor,
    which: BuildsToDelete,
    options: { limit: number; wait?: boolean },
  ): Promise<DeletedBuilds> {
    const { where, order } = deletionScope(which);
    const { limit } = options;
    const lock = options.wait === true ? sql`for update` : sql`for update skip locked`;
    const { rows } = await sql<{ builds: number; log_chunks: number; log_bytes: string }>`
      with victims as (
        select id from builds
        where ${where} and status in (${sql.join(FINISHED_STATUSES)})
        order by ${order}
        limit ${limit}
        ${lock}),
      chunks as (
        select count(*)::int as n, coalesce(sum(c.byte_size), 0)::bigint as bytes
        from build_log_chunks c where c.build_id in (select id from victims)),
      tokens as (${engineTokensDelete(sql`select id from victims`)}),
      gone as (
        delete from builds b where b.id in (select id from victims) returning b.id)
      select (select count(*)::int from gone) as builds, chunks.n as log_chunks,
        chunks.bytes as log_bytes
      from chunks`.execute(executor);
    const [row] = rows;
    const bytes = Number(row?.log_bytes ?? 0);
    return { builds: row?.builds ?? 0, logChunks: row?.log_chunks ?? 0, logBytes: bytes };
  }

  /** An update of the build that applies only from the statuses `transition` may leave. */
  #move(trx: Executor, buildId: string, transition: BuildTransition) {
    return trx
      .updateTable('builds')
      .where('id', '=', buildId)
      .where('status', 'in', sourcesOf(transition));
  }
}

/** The condition and order of a delete's batch: each one an index range (see migration 014). */
function deletionScope(which: BuildsToDelete) {
  if ('buildId' in which) return { where: sql`id = ${which.buildId}`, order: sql`id` };
  if ('pipelineIds' in which) {
    const ids = [...which.pipelineIds];
    return { where: sql`pipeline_id = any(${ids}::text[])`, order: sql`pipeline_id, number` };
  }
  const pipeline = sql`pipeline_id = ${which.pipelineId}`;
  if ('createdBefore' in which) {
    const before = sql`created_at < ${which.createdBefore}::timestamptz`;
    return { where: sql`${pipeline} and ${before}`, order: sql`created_at` };
  }
  // The number of the newest build beyond those kept: one probe of (pipeline_id, number).
  const beyond = sql`(select number from builds where ${pipeline}
    order by number desc offset ${which.keepNewest} limit 1)`;
  return { where: sql`${pipeline} and number <= ${beyond}`, order: sql`number` };
}

function newBuildRow(build: NewBuild) {
  return {
    id: build.id,
    account_id: build.accountId,
    pipeline_id: build.pipelineId,
    number: build.number,
    status: 'pending' as const,
    trigger: build.trigger,
    initiator: build.initiator,
    branch: build.branch,
    revision: build.revision,
    facts: jsonb(build.facts),
    variables: jsonb(build.variables),
    secret_variables_encrypted: build.secretsEncrypted,
    secret_names: jsonb(build.secretNames),
    retry_of: build.retryOf,
    runtime_environment: build.runtime,
    stages: jsonb(build.stages),
    yaml: build.yaml,
    spec_template: build.specTemplate === null ? null : jsonb(build.specTemplate),
    timing: jsonb({ queuedAt: build.createdAt.toISOString() }),
    created_at: build.createdAt,
    updated_at: build.createdAt,
  };
}
