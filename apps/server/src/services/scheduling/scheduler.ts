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
import type { BuildStore, ElectedStart } from '../builds/build-store.js';
import { coalescePasses } from '../coalesced-passes.js';
import { accountsWithPendingBuilds, passInputs } from '../builds/build-rows.js';
import type { ActiveCounts, PassInputs, PendingBuild } from '../builds/build-rows.js';
import type { ServerContext } from '../server-context.js';
import type { TaskPlanner } from '../tasks/task-planner.js';

export class Scheduler {
  readonly #ctx: ServerContext;
  readonly #planner: TaskPlanner;
  readonly #store: BuildStore;
  /** One pass per account at a time in this process, shared by the calls that wait for it. */
  readonly #schedule = coalescePasses((accountId) => this.#pass(accountId));

  constructor(ctx: ServerContext, planner: TaskPlanner, store: BuildStore) {
    this.#ctx = ctx;
    this.#store = store;
    this.#planner = planner;
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
      // One scheduler pass per account at a time, across server processes. The id as a literal:
      // a statement without parameters travels with the transaction's begin (translating-pool).
      await sql`select pg_advisory_xact_lock(hashtext(${sql.lit(accountId)}))`.execute(trx);
      const inputs = await passInputs(trx, accountId);
      if (inputs === undefined || inputs.pending.length === 0) return 0;
      return this.#elect(trx, accountId, inputs);
    });
    this.#ctx.metrics.schedulingPass((performance.now() - started) / 1000, elected);
  }

  /**
   * Takes the pending builds oldest first under the limits, plans each one taken (no statement
   * for a local runtime: its spec came with the inputs) and elects them all with their tasks in
   * one statement, so a pass is four round trips however many builds it elects. A build its
   * runtime cannot run ends `error` there and then, and its place goes to the next.
   */
  async #elect(trx: Executor, accountId: string, inputs: PassInputs): Promise<number> {
    const { account, pending, active, runtimes } = inputs;
    const plan = this.#planner.startPlanner(trx, accountId, runtimes);
    const starts: ElectedStart[] = [];
    const waiting: { buildId: string; reason: string }[] = [];
    for (const build of pending) {
      const runtime = build.build_runtime ?? build.pipeline_runtime ?? account.default_runtime;
      const reason = waitingReason(build, runtime, active, account.max_concurrent_builds);
      if (reason !== undefined) {
        if (build.reason !== reason) waiting.push({ buildId: build.id, reason });
        continue;
      }
      const start = { accountId, buildId: build.id, runtime: runtime as string, firstPosition: 0 };
      const planned = await plan(start);
      if (!planned.ok) {
        this.#ctx.log.warn('build cannot start on its runtime', { buildId: build.id, runtime });
        await this.#store.electStarts(trx, [{ ...start, tasks: [] }]);
        await this.#store.finish(trx, build.id, 'error', planned.reason);
        continue;
      }
      starts.push({ ...start, tasks: planned.tasks, engineToken: planned.engineToken });
      countActive(active, build);
    }
    await this.#store.setWaitingReasons(trx, waiting);
    return this.#store.electStarts(trx, starts);
  }
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
    return "No runtime environment: the pipeline names none and the account has no default; make one the default with `sluice patch re NAME --default` (PUT /api/v1/runtime-environments/NAME/default), or set the pipeline's";
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
