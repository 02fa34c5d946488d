/**
 * Deleting what has run: a finished build, or a pipeline or a project with all their builds,
 * steps, logs, tasks, approvals and annotations. Builds go through the build store in batches,
 * each batch a statement of its own, so a pipeline with 100,000 builds is deleted while the
 * server keeps answering (no lock is held for longer than a batch). Only then, in one short
 * transaction that locks the pipelines (a build being created waits, then fails for want of
 * its pipeline), the last builds made meanwhile and the pipelines go.
 *
 * A build that has not finished keeps its pipeline: the delete answers 409 naming it and how to
 * cancel it, and deletes nothing. There is no `--force` that cancels first: a running build's
 * engine, pods and volume are stopped by its agent, which takes time the delete would have to
 * wait for, and a cancel the user did not see is worse than a refusal that says what to do.
 * @module
 */
import { ConflictError, NotFoundError } from '@sluice/errors';
import { sql } from '@sluice/db';
import type { Executor } from '@sluice/db';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { DeletedData } from '@sluice/protocol';
import type { ServerContext } from '../server-context.js';
import { buildsVolume, loadBuild, unfinishedBuild } from './build-rows.js';
import type { BuildStore, BuildsToDelete, DeletedBuilds } from './build-store.js';

/** Builds deleted per statement: short enough that readers of the same rows barely wait. */
export const DELETE_BATCH = 50;

export interface DeleteOptions {
  /** Delete nothing; answer with what would go. */
  dryRun?: boolean;
}

/** The pipelines a delete takes, found in the account, with names for its messages. */
interface Doomed {
  pipelines: { id: string; name: string }[];
  /** `project` for a project, `project/pipeline` for a pipeline: what the messages name. */
  what: string;
  /** Locks the rows to delete and deletes them, in the final transaction. */
  remove(trx: Executor): Promise<void>;
}

export class BuildDeletion {
  readonly #ctx: ServerContext;
  readonly #store: BuildStore;

  constructor(ctx: ServerContext, store: BuildStore) {
    this.#ctx = ctx;
    this.#store = store;
  }

  /** A finished build; 409 naming its status otherwise. */
  async deleteBuild(accountId: string, buildId: string): Promise<DeletedData> {
    const build = await loadBuild(this.#ctx.database.db, accountId, buildId);
    if (!FINISHED_STATUSES.includes(build.status))
      throw new ConflictError(
        'SLUICE_BUILD_NOT_FINISHED',
        `Build ${buildId} is ${build.status}: only a finished build can be deleted`,
        {
          details: { buildId, status: build.status },
          hint: `Cancel it with: sluice cancel ${buildId}; delete it once it has ended`,
        },
      );
    const deleted = await this.#store.deleteFinished(
      this.#ctx.database.db,
      { buildId },
      { limit: 1, wait: true },
    );
    if (deleted.builds === 0)
      throw new NotFoundError('SLUICE_BUILD_NOT_FOUND', `Build ${buildId} does not exist`);
    this.#ctx.log.info('build deleted', { buildId, ...deleted });
    return { dryRun: false, pipelines: 0, ...deleted };
  }

  async deletePipeline(
    accountId: string,
    pipelineId: string,
    options: DeleteOptions = {},
  ): Promise<DeletedData> {
    const row = await this.#ctx.database.db
      .selectFrom('pipelines')
      .innerJoin('projects', 'projects.id', 'pipelines.project_id')
      .select(['pipelines.id', 'pipelines.name', 'projects.name as project'])
      .where('pipelines.id', '=', pipelineId)
      .where('pipelines.account_id', '=', accountId)
      .executeTakeFirst();
    if (row === undefined)
      throw new NotFoundError('SLUICE_PIPELINE_NOT_FOUND', `Pipeline ${pipelineId} does not exist`);
    return this.#delete(
      {
        pipelines: [{ id: row.id, name: `${row.project}/${row.name}` }],
        what: `Pipeline ${row.project}/${row.name}`,
        remove: async (trx) => {
          await lockRows(trx, 'pipelines', [row.id]);
          await trx.deleteFrom('pipelines').where('id', '=', row.id).execute();
        },
      },
      options,
    );
  }

  async deleteProject(
    accountId: string,
    name: string,
    options: DeleteOptions = {},
  ): Promise<DeletedData> {
    const db = this.#ctx.database.db;
    const project = await db
      .selectFrom('projects')
      .select('id')
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (project === undefined)
      throw new NotFoundError('SLUICE_PROJECT_NOT_FOUND', `Project "${name}" does not exist`);
    const pipelines = await db
      .selectFrom('pipelines')
      .select(['id', 'name'])
      .where('project_id', '=', project.id)
      .orderBy('name')
      .execute();
    return this.#delete(
      {
        pipelines: pipelines.map((p) => ({ id: p.id, name: `${name}/${p.name}` })),
        what: `Project ${name}`,
        remove: async (trx) => {
          await lockRows(trx, 'projects', [project.id]);
          // Its pipelines go with it (on delete cascade), once their builds have.
          await trx.deleteFrom('projects').where('id', '=', project.id).execute();
        },
      },
      options,
    );
  }

  async #delete(doomed: Doomed, options: DeleteOptions): Promise<DeletedData> {
    const db = this.#ctx.database.db;
    const ids = doomed.pipelines.map((p) => p.id);
    await this.#assertFinished(db, doomed);
    if (options.dryRun === true)
      return { dryRun: true, pipelines: ids.length, ...(await buildsVolume(db, ids)) };
    const total: DeletedBuilds = { builds: 0, logChunks: 0, logBytes: 0 };
    for (;;) {
      const batch = await this.#store.deleteFinished(
        db,
        { pipelineIds: ids },
        { limit: DELETE_BATCH },
      );
      add(total, batch);
      if (batch.builds < DELETE_BATCH) break;
    }
    await db.transaction().execute(async (trx) => {
      // Locked first: a build created from now on waits for this transaction, then fails.
      await lockRows(trx, 'pipelines', ids);
      await this.#assertFinished(trx, doomed);
      await this.#deleteAll(trx, { pipelineIds: ids }, total);
      await doomed.remove(trx);
    });
    this.#ctx.log.info('pipelines deleted', { what: doomed.what, pipelines: ids.length, ...total });
    return { dryRun: false, pipelines: ids.length, ...total };
  }

  /** Every finished build of `which` in `trx`, waiting for rows others hold. */
  async #deleteAll(trx: Executor, which: BuildsToDelete, total: DeletedBuilds): Promise<void> {
    for (;;) {
      const batch = await this.#store.deleteFinished(trx, which, {
        limit: DELETE_BATCH,
        wait: true,
      });
      add(total, batch);
      if (batch.builds < DELETE_BATCH) return;
    }
  }

  async #assertFinished(executor: Executor, doomed: Doomed): Promise<void> {
    const ids = doomed.pipelines.map((p) => p.id);
    const build = await unfinishedBuild(executor, ids);
    if (build === undefined) return;
    const pipeline = doomed.pipelines.find((p) => p.id === build.pipeline_id)?.name ?? '';
    throw new ConflictError(
      'SLUICE_PIPELINE_HAS_ACTIVE_BUILD',
      `${doomed.what} was not deleted: build ${build.id} (#${build.number} of ${pipeline}) is ${build.status}`,
      {
        details: { buildId: build.id, status: build.status },
        hint: `Cancel it with: sluice cancel ${build.id}; delete again once it has ended`,
      },
    );
  }
}

function add(total: DeletedBuilds, batch: DeletedBuilds): void {
  total.builds += batch.builds;
  total.logChunks += batch.logChunks;
  total.logBytes += batch.logBytes;
}

/** `select … for update` of rows by id, in `trx`. */
async function lockRows(
  trx: Executor,
  table: 'pipelines' | 'projects',
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  await sql`select id from ${sql.table(table)} where id = any(${[...ids]}::text[]) for update`.execute(
    trx,
  );
}
