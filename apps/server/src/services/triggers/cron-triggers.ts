/**
 * Cron triggers: `fireDue` creates one build per enabled cron trigger whose `next_run_at` has
 * passed, and moves `next_run_at` to the schedule's first minute after `now`, in the same
 * transaction as the build. Each trigger row is claimed `FOR UPDATE SKIP LOCKED` and re-checked
 * under the lock, so two server processes (or two overlapping calls) never fire it twice.
 * Because the next run is computed from `now`, not from the missed slot, a server that was down
 * for many slots fires each trigger once when it comes back, not once per slot.
 * `startCronLoop` runs `fireDue` at start and then on an interval.
 * @module
 */
import { startPassLoop } from '../pass-loop.js';
import type { PassLoop, PassLoopOptions } from '../pass-loop.js';
import { requireCron, nextRun } from '@sluice/triggers';
import type { Logger } from '@sluice/log';
import type { BuildService } from '../builds/build-service.js';
import type { ServerContext } from '../server-context.js';
import { cronBranch, userVariables } from './trigger-rows.js';

export interface FireDueOptions {
  /** The time to fire for; the server's clock by default. */
  now?: Date;
}

export interface FiredTrigger {
  triggerId: string;
  buildId: string;
  nextRunAt: Date;
}

export interface FireDueResult {
  fired: FiredTrigger[];
  /** Triggers whose build could not be created; they are retried on the next call. */
  failed: string[];
}

/** Due triggers looked at per call; the rest wait for the next tick. */
const BATCH = 100;

export class CronTriggers {
  readonly #ctx: ServerContext;
  readonly #builds: BuildService;
  readonly #log: Logger;

  constructor(ctx: ServerContext, builds: BuildService) {
    this.#ctx = ctx;
    this.#builds = builds;
    this.#log = ctx.log;
  }

  async fireDue(options: FireDueOptions = {}): Promise<FireDueResult> {
    const now = options.now ?? new Date(this.#ctx.clock());
    const due = await this.#ctx.database.db
      .selectFrom('triggers')
      .select('id')
      .where('kind', '=', 'cron')
      .where('enabled', '=', true)
      .where('next_run_at', '<=', now)
      .orderBy('next_run_at')
      .limit(BATCH)
      .execute();
    const result: FireDueResult = { fired: [], failed: [] };
    for (const { id } of due) {
      try {
        const fired = await this.#fire(id, now);
        if (fired === undefined) continue;
        result.fired.push(fired.trigger);
      } catch (err) {
        result.failed.push(id);
        this.#log.error('cron trigger failed to fire', { triggerId: id, error: String(err) });
      }
    }
    return result;
  }

  /** Undefined when another caller holds the trigger or has already fired it for `now`. */
  async #fire(triggerId: string, now: Date): Promise<{ trigger: FiredTrigger } | undefined> {
    return this.#builds.transaction(async (trx) => {
      const row = await trx
        .selectFrom('triggers')
        .selectAll()
        .where('id', '=', triggerId)
        .where('kind', '=', 'cron')
        .where('enabled', '=', true)
        .where('next_run_at', '<=', now)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const nextRunAt = nextRun(requireCron(row.cron ?? ''), now);
      const buildId = await this.#builds.insert(trx, {
        accountId: row.account_id,
        pipelineId: row.pipeline_id,
        trigger: 'cron',
        branch: cronBranch(row),
        facts: { trigger: 'cron' },
        variables: userVariables(row),
      });
      await trx
        .updateTable('triggers')
        .set({ next_run_at: nextRunAt })
        .where('id', '=', row.id)
        .execute();
      this.#log.info('cron trigger fired', {
        triggerId: row.id,
        buildId,
        nextRunAt: nextRunAt.toISOString(),
      });
      return { trigger: { triggerId: row.id, buildId, nextRunAt } };
    });
  }
}

export type CronLoopOptions = PassLoopOptions;
export type CronLoop = PassLoop;

/** Fires due triggers now and every `intervalMs`; a tick is skipped while a run is in progress. */
export function startCronLoop(cron: CronTriggers, options: CronLoopOptions): CronLoop {
  return startPassLoop(() => cron.fireDue(), 'firing cron triggers failed', options);
}
