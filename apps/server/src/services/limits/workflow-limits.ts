/**
 * Enforces each build's runtime `workflowLimits` (docs/runtime-limits.md): a pass reads every
 * active build and what happened to it from the database, decides with `decideLimits`, and
 * applies the decision through `BuildStore` (ending it, which queues the stop tasks that
 * remove its pods or engine process, or asking its engine to stop through the control channel,
 * as a cancel does). Everything it reads is in the database, so a restarted server, or a second
 * one, carries on where the last pass left; two passes at once decide the same and apply once
 * (each write is conditional). The server runs a pass every `intervalMs`.
 * @module
 */
import type { Logger } from '@sluice/log';
import { DEFAULT_WORKFLOW_LIMITS } from '@sluice/runtime-spec';
import type { WorkflowLimits } from '@sluice/runtime-spec';
import { activeBuildClocks } from '../builds/build-rows.js';
import type { BuildStore } from '../builds/build-store.js';
import type { RuntimeService } from '../settings/runtime-service.js';
import type { ServerContext } from '../server-context.js';
import {
  decideLimits,
  electedAgeBeforeAnyLimit,
  UNHEALTHY_PREFIX,
} from './workflow-limit-rules.js';
import type { ActiveStatus, BuildClocks, LimitAction } from './workflow-limit-rules.js';

export interface WorkflowLimitsDeps {
  runtimes: RuntimeService;
  store: BuildStore;
}

interface ActiveBuild {
  id: string;
  accountId: string;
  runtime: string | null;
  clocks: BuildClocks;
}

export class WorkflowLimitsEnforcer {
  readonly #ctx: ServerContext;
  readonly #deps: WorkflowLimitsDeps;
  /** The start of the first pass that read the database after a start or an outage. */
  #listeningSince: number | undefined;

  constructor(ctx: ServerContext, deps: WorkflowLimitsDeps) {
    this.#ctx = ctx;
    this.#deps = deps;
  }

  /** One pass over the active builds; how many it acted on. */
  async enforce(): Promise<{ acted: number }> {
    const started = this.#ctx.clock();
    let builds: ActiveBuild[];
    try {
      builds = await this.#activeBuilds((this.#listeningSince ??= started));
    } catch (err) {
      // Engines cannot report while the database is away: their silence restarts with it.
      this.#listeningSince = undefined;
      throw err;
    }
    const limitsOf = new Map<string, Promise<Required<WorkflowLimits>>>();
    let acted = 0;
    for (const build of builds) {
      const key = `${build.accountId}\u0000${build.runtime ?? ''}`;
      if (!limitsOf.has(key)) limitsOf.set(key, this.#limits(build.accountId, build.runtime));
      const limits = await limitsOf.get(key)!;
      const action = decideLimits(build.clocks, limits, this.#ctx.clock());
      if (action !== undefined && (await this.#apply(build, action))) acted += 1;
    }
    return { acted };
  }

  /** The runtime's limits over the defaults; the defaults when the runtime no longer resolves. */
  async #limits(accountId: string, runtime: string | null): Promise<Required<WorkflowLimits>> {
    if (runtime === null) return DEFAULT_WORKFLOW_LIMITS;
    try {
      const spec = await this.#deps.runtimes.resolve(accountId, runtime);
      return { ...DEFAULT_WORKFLOW_LIMITS, ...spec.runtimeScheduler?.workflowLimits };
    } catch {
      return DEFAULT_WORKFLOW_LIMITS;
    }
  }

  async #activeBuilds(listeningSince: number): Promise<ActiveBuild[]> {
    const youngest = electedAgeBeforeAnyLimit([
      DEFAULT_WORKFLOW_LIMITS,
      ...(await this.#deps.runtimes.workflowLimitsInUse()),
    ]);
    const before = youngest === undefined ? undefined : new Date(this.#ctx.clock() - youngest);
    const rows = await activeBuildClocks(this.#ctx.database.db, before);
    return rows.map((row) => {
      const timing = row.timing;
      const lastLog = ms(row.last_log_at);
      const lastEvent = ms(row.engine_event_at);
      const stopAt = ms(row.stop_requested_at);
      const clocks: BuildClocks = {
        status: row.status as ActiveStatus,
        createdAt: ms(row.created_at) ?? 0,
        electedAt: ms(timing.electedAt) ?? ms(row.updated_at) ?? 0,
        engineStartedAt: ms(row.engine_started_at) ?? ms(timing.engineStartedAt),
        lastReportAt: ms(row.engine_heartbeat_at),
        lastOutputAt:
          lastLog === null && lastEvent === null ? null : Math.max(lastLog ?? 0, lastEvent ?? 0),
        stepStarted: timing.firstStepStartedAt !== undefined,
        postStepsStartedAt: ms(row.post_steps_started_at),
        stop:
          stopAt === null
            ? null
            : { requestedAt: stopAt, status: row.stop_status, reason: row.stop_reason },
        unhealthy: row.reason?.startsWith(UNHEALTHY_PREFIX) === true,
        listeningSince,
      };
      return { id: row.id, accountId: row.account_id, runtime: row.runtime_environment, clocks };
    });
  }

  /** Applies `action`; false when the build changed meanwhile and nothing was done. */
  async #apply(build: ActiveBuild, action: LimitAction): Promise<boolean> {
    const { db } = this.#ctx.database;
    const log = this.#ctx.log.child({ component: 'workflow-limits', buildId: build.id });
    switch (action.kind) {
      case 'finish': {
        const done = await this.#deps.store.transaction((trx) =>
          this.#deps.store.finish(trx, build.id, action.status, action.reason),
        );
        if (!done) return false;
        log.warn('build ended by a workflow limit', {
          status: action.status,
          reason: action.reason,
        });
        return true;
      }
      case 'stop': {
        const asked = await db
          .transaction()
          .execute((trx) => this.#deps.store.requestStop(trx, build.id, action));
        if (asked) log.warn('build stopped by a workflow limit', { reason: action.reason });
        return asked;
      }
      case 'unhealthy':
      case 'healthy': {
        const mark = action.kind === 'unhealthy' ? action.reason : null;
        const changed = await this.#deps.store.markHealth(build.id, mark, UNHEALTHY_PREFIX);
        if (mark !== null) log.info('build marked unhealthy', { reason: mark });
        return changed;
      }
    }
  }
}

/** A stored time (a Date, or ISO text in jsonb) in ms; null when absent or not a time. */
function ms(value: unknown): number | null {
  if (!(value instanceof Date) && typeof value !== 'string') return null;
  const time = (value instanceof Date ? value : new Date(value)).getTime();
  return Number.isNaN(time) ? null : time;
}

export interface LimitsLoopOptions {
  intervalMs: number;
  log: Logger;
}

/** Runs a pass now and every `intervalMs` after the last one ended; a failed pass is logged. */
export function startLimitsLoop(
  enforcer: Pick<WorkflowLimitsEnforcer, 'enforce'>,
  options: LimitsLoopOptions,
): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    running = enforcer
      .enforce()
      .then(
        () => undefined,
        (err: unknown) => options.log.warn('workflow limits pass failed', { error: String(err) }),
      )
      .finally(() => {
        running = undefined;
        if (stopped) return;
        timer = setTimeout(tick, options.intervalMs);
        timer.unref();
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
