/**
 * Retention: finished builds past their pipeline's `retention` (`{ days, builds }`; a pipeline
 * without one has the server's default, `SLUICE_RETENTION_DAYS` and `SLUICE_RETENTION_BUILDS`,
 * which keep everything when unset) are deleted in the background with their steps and logs.
 * A pass goes through the pipelines in pages and deletes each one's builds in small batches,
 * each one short statement followed by a rest twice as long, so the API's readers never wait
 * long behind it. The batches claim their builds with SKIP LOCKED: on several
 * servers every pass runs and they share the work, as the cron triggers do. `startRetentionLoop`
 * runs a pass at start and then every `SLUICE_RETENTION_INTERVAL_MS`; stopping it ends the pass
 * under way after its current batch.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Retention } from '@sluice/protocol';
import { startPassLoop } from '../pass-loop.js';
import type { PassLoop, PassLoopOptions } from '../pass-loop.js';
import type { ServerContext } from '../server-context.js';
import { retentionOf } from '../projects/pipeline-retention.js';
import { DELETE_BATCH } from './build-deletion.js';
import type { BuildStore, BuildsToDelete, DeletedBuilds } from './build-store.js';

/** Pipelines read per page of a pass. */
const PAGE = 500;
const DAY_MS = 86_400_000;
/** The longest rest between two batches. */
const MAX_REST_MS = 1_000;
/**
 * Builds per batch: smaller than a deletion by hand (`DELETE_BATCH`), as nobody waits for the
 * pass, so a request arriving during a batch waits behind less.
 */
const RETENTION_BATCH = Math.max(1, Math.floor(DELETE_BATCH / 5));
/** The rest after a batch, as a multiple of its time: the pass takes a third of the database's. */
const REST_FACTOR = 2;

export interface RetentionResult extends DeletedBuilds {
  /** Pipelines that lost builds in this pass. */
  pipelines: number;
}

export class BuildRetention {
  readonly #ctx: ServerContext;
  readonly #store: BuildStore;

  constructor(ctx: ServerContext, store: BuildStore) {
    this.#ctx = ctx;
    this.#store = store;
  }

  /** The server's default: what a pipeline without a `retention` of its own keeps. */
  get defaults(): Retention {
    const { retentionDays: days, retentionBuilds: builds } = this.#ctx.config;
    return { ...(days === undefined ? {} : { days }), ...(builds === undefined ? {} : { builds }) };
  }

  /**
   * One pass over every pipeline with a retention (its own or the default); `now`: the clock's.
   * An aborted `signal` ends it after the batch under way.
   */
  async run(options: { now?: Date; signal?: AbortSignal } = {}): Promise<RetentionResult> {
    const now = options.now ?? new Date(this.#ctx.clock());
    const { signal } = options;
    const defaults = this.defaults;
    const anyDefault = defaults.days != null || defaults.builds != null;
    const result: RetentionResult = { pipelines: 0, builds: 0, logChunks: 0, logBytes: 0 };
    let after = '';
    for (;;) {
      let query = this.#ctx.database.db
        .selectFrom('pipelines')
        .select(['id', 'retention'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE);
      // Without a default only pipelines with a retention of their own lose builds.
      if (!anyDefault) query = query.where('retention', 'is not', null);
      const page = await query.execute();
      for (const pipeline of page) {
        const retention = pipeline.retention === null ? defaults : retentionOf(pipeline.retention);
        if (signal?.aborted === true) return result;
        const deleted = await this.#apply(pipeline.id, retention, { now, signal });
        if (deleted.builds === 0) continue;
        result.pipelines += 1;
        result.builds += deleted.builds;
        result.logChunks += deleted.logChunks;
        result.logBytes += deleted.logBytes;
        this.#ctx.log.info('builds past retention deleted', {
          pipelineId: pipeline.id,
          ...deleted,
        });
      }
      const last = page.at(-1);
      if (last === undefined || page.length < PAGE) return result;
      after = last.id;
    }
  }

  async #apply(
    pipelineId: string,
    retention: Retention,
    { now, signal }: { now: Date; signal: AbortSignal | undefined },
  ): Promise<DeletedBuilds> {
    const total: DeletedBuilds = { builds: 0, logChunks: 0, logBytes: 0 };
    if (retention.builds != null)
      await this.#drain({ pipelineId, keepNewest: retention.builds }, total, signal);
    if (retention.days != null) {
      const createdBefore = new Date(now.getTime() - retention.days * DAY_MS);
      await this.#drain({ pipelineId, createdBefore }, total, signal);
    }
    return total;
  }

  /**
   * Batches until one comes back short: each its own statement, nothing held in between. After
   * each, the pass rests twice as long as the batch took, so it never takes more than a third of
   * the database's time from the requests (a background pass has no one waiting for it).
   */
  async #drain(
    which: BuildsToDelete,
    total: DeletedBuilds,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    for (;;) {
      const started = this.#ctx.clock();
      const batch = await this.#store.deleteFinished(this.#ctx.database.db, which, {
        limit: RETENTION_BATCH,
      });
      total.builds += batch.builds;
      total.logChunks += batch.logChunks;
      total.logBytes += batch.logBytes;
      if (batch.builds < RETENTION_BATCH || signal?.aborted === true) return;
      const took = Math.max(0, this.#ctx.clock() - started);
      await sleep(Math.min(MAX_REST_MS, took * REST_FACTOR));
    }
  }
}

export type RetentionLoop = PassLoop;

/**
 * A pass now and every `intervalMs`; a tick is skipped while a pass runs. `stop` ends the pass
 * under way after its batch: a server stopping does not wait for 100,000 builds to go.
 */
export function startRetentionLoop(
  retention: BuildRetention,
  options: PassLoopOptions,
): RetentionLoop {
  const stopping = new AbortController();
  const pass = () => retention.run({ signal: stopping.signal });
  const loop = startPassLoop(pass, 'deleting builds past their retention failed', options);
  return {
    async stop() {
      stopping.abort();
      await loop.stop();
    },
  };
}
