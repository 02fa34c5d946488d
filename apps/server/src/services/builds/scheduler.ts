/**
 * Moves pending builds to `elected` under the concurrency limits (per pipeline and per account),
 * picks each one's runtime environment (the build's own, else the pipeline's, else the account
 * default), and
 * turns it into tasks for the agent that serves that runtime, in the same transaction. Builds
 * that cannot run yet stay pending with the reason; a build its runtime cannot run (a spec that
 * does not render) ends `error` without holding up the others.
 * @module
 */
import { sql } from '@sluice/db';
import type { Executor } from '@sluice/db';
import type { BuildFinisher } from './build-finisher.js';
import type { BuildStore } from './build-store.js';
import { coalescePasses } from '../coalesced-passes.js';
import { accountsWithPendingBuilds, passInputs } from './build-rows.js';
import type { ActiveCounts, PendingBuild } from './build-rows.js';
import type { ServerContext } from '../server-context.js';
import type { TaskPlanner } from '../tasks/task-planner.js';
import { insertBuildTasks } from '../tasks/task-rows.js';
import type { InsertTasksOptions } from '../tasks/task-rows.js';

export class Scheduler {
  readonly #ctx: ServerContext;
  readonly #planner: TaskPlanner;
  readonly #finisher: BuildFinisher;
  readonly #store: BuildStore;
  /** One pass per account at a time in this process, shared by the calls that wait for it. */
  readonly #schedule = coalescePasses((accountId) => this.#pass(accountId));

  constructor(
    ctx: ServerContext,
    planner: TaskPlanner,
    finisher: BuildFinisher,
    store: BuildStore,
  ) {
    this.#ctx = ctx;
    this.#store = store;
    this.#planner = planner;
    this.#finisher = finisher;
  }

  /**
   * A pass for every account that has a pending build: what startup and a regained database
   * run, since a build committed just before a crash (or a lost connection) was never scheduled.
   */
  async schedulePending(): Promise<{ accounts: number }> {
    const accounts = await accountsWithPendingBuilds(this.#ctx.database.db);
    for (const accountId of accounts) await this.schedule(accountId);
    return { accounts: accounts.length };
  }

  /**
   * Resolves after a pass for the account that started after this call, so a build committed
   * before it has been considered. The build store's writes call it through their wake-ups
   * (`scheduling-wakeups.ts`); nothing else needs to. Calls that arrive while a pass runs share the one pass queued
   * behind it: under a burst of new builds one pass elects many, instead of every request
   * running its own pass and waiting its turn for the account's lock with a pooled connection.
   */
  schedule(accountId: string): Promise<void> {
    return this.#schedule(accountId);
  }

  async #pass(accountId: string): Promise<void> {
    await this.#planner.prepare();
    const started = performance.now();
    // On the passes' own connections: every create waiting for this pass would otherwise hold
    // the pool while the pass queued behind them for a connection.
    const elected = await this.#ctx.database.passes.transaction().execute(async (trx) => {
      // One scheduler pass per account at a time, across server processes.
      await sql`select pg_advisory_xact_lock(hashtext(${accountId}))`.execute(trx);
      const inputs = await passInputs(trx, accountId);
      if (inputs === undefined || inputs.pending.length === 0) return 0;
      const { account, pending, active } = inputs;
      const together = await this.#electTogether(trx, accountId, account, pending, active);
      if (together !== undefined) return together;
      const elected: InsertTasksOptions[] = [];
      for (const build of pending) {
        const runtime = build.build_runtime ?? build.pipeline_runtime ?? account.default_runtime;
        const wait = waitingReason(build, runtime, active, account.max_concurrent_builds);
        if (wait !== undefined) {
          await this.#setReason(trx, build, wait);
          continue;
        }
        const plan = await this.#plan(trx, accountId, build.id, runtime as string);
        if (plan === undefined) continue;
        elected.push(plan);
        countActive(active, build);
      }
      await this.#elect(trx, elected);
      return elected.length;
    });
    this.#ctx.metrics.schedulingPass((performance.now() - started) / 1000, elected);
  }

  /**
   * The usual case in a few statements however many builds: chooses under the limits, plans
   * the chosen together and elects them. A build its runtime cannot run frees its place for the
   * next one, which only the one-by-one pass gets right: then this is rolled back and
   * undefined; else how many it elected.
   */
  async #electTogether(
    trx: Executor,
    accountId: string,
    account: AccountLimits,
    pending: readonly PendingBuild[],
    counts: ActiveCounts,
  ): Promise<number | undefined> {
    const active = { total: counts.total, byPipeline: new Map(counts.byPipeline) };
    const chosen: { build: PendingBuild; runtime: string }[] = [];
    const waiting: { build: PendingBuild; reason: string }[] = [];
    for (const build of pending) {
      const runtime = build.build_runtime ?? build.pipeline_runtime ?? account.default_runtime;
      const reason = waitingReason(build, runtime, active, account.max_concurrent_builds);
      if (reason !== undefined) waiting.push({ build, reason });
      else {
        chosen.push({ build, runtime: runtime as string });
        countActive(active, build);
      }
    }
    await sql`savepoint elect_together`.execute(trx);
    const plans = await this.#planner.planStarts(
      trx,
      chosen.map(({ build, runtime }) => ({ accountId, buildId: build.id, runtime })),
    );
    const elected = chosen.flatMap(({ build, runtime }, i) => {
      const plan = plans[i];
      return plan?.ok
        ? [{ accountId, buildId: build.id, runtime, tasks: plan.tasks, firstPosition: 0 }]
        : [];
    });
    if (elected.length < chosen.length) {
      await sql`rollback to savepoint elect_together`.execute(trx);
      return undefined;
    }
    await this.#elect(trx, elected);
    for (const { build, reason } of waiting) await this.#setReason(trx, build, reason);
    return elected.length;
  }

  async #setReason(trx: Executor, build: PendingBuild, reason: string): Promise<void> {
    if (build.reason !== reason) await this.#store.setWaitingReason(trx, build.id, reason);
  }

  /** The build's start tasks; undefined when its runtime cannot run it, and it has ended `error`. */
  async #plan(
    trx: Executor,
    accountId: string,
    buildId: string,
    runtime: string,
  ): Promise<InsertTasksOptions | undefined> {
    const plan = await this.#planner.planStart(trx, { accountId, buildId, runtime });
    if (plan.ok) return { accountId, buildId, runtime, tasks: plan.tasks, firstPosition: 0 };
    this.#ctx.log.warn('build cannot start on its runtime', { buildId, runtime });
    await this.#store.elect(trx, [{ buildId, runtime }]);
    await this.#finisher.finish(trx, buildId, 'error', plan.reason);
    return undefined;
  }

  /**
   * The planned builds elected and their tasks queued, in a few statements however many: one
   * update per runtime, one insert, one wake-up per runtime.
   */
  async #elect(trx: Executor, builds: readonly InsertTasksOptions[]): Promise<void> {
    if (builds.length === 0) return;
    await this.#store.elect(trx, builds);
    await insertBuildTasks(this.#ctx, trx, builds);
  }
}

interface AccountLimits {
  default_runtime: string | null;
  max_concurrent_builds: number | null;
}

function countActive(active: ActiveCounts, build: PendingBuild): void {
  active.total += 1;
  active.byPipeline.set(build.pipeline_id, (active.byPipeline.get(build.pipeline_id) ?? 0) + 1);
}

function waitingReason(
  build: PendingBuild,
  runtime: string | null,
  active: ActiveCounts,
  accountLimit: number | null,
): string | undefined {
  if (runtime === null)
    return "No runtime environment: set the pipeline's, or an account default (PUT /api/v1/runtime-environments/NAME/default)";
  if (
    build.pipeline_limit !== null &&
    (active.byPipeline.get(build.pipeline_id) ?? 0) >= build.pipeline_limit
  ) {
    return `Waiting: the pipeline allows ${build.pipeline_limit} concurrent build(s)`;
  }
  if (accountLimit !== null && active.total >= accountLimit)
    return `Waiting: the account allows ${accountLimit} concurrent build(s)`;
  return undefined;
}
