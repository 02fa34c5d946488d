/**
 * What a build's status move must also do besides setting the status (`build-transitions.ts`),
 * each effect carried out here in one exhaustive `switch`: a new effect fails the type check
 * until it is carried out, instead of being skipped by a caller that did not know of it.
 * @module
 */
import type { Executor } from '@sluice/db';
import type { BuildEffect } from './build-transitions.js';
import { closeSteps } from './build-steps.js';
import { revokeEngineToken } from './engine-tokens.js';
import { endBuildTasks, wasHandedOut } from './task-rows.js';
import type { PlannedTask } from './task-rows.js';
import { CHANNELS } from '../pg-notify.js';
import type { SchedulingWakeups } from '../scheduling-wakeups.js';
import type { ServerContext } from '../server-context.js';

/** What plans a build's stop tasks (the task planner's `planStop`), for its end. */
export interface StopPlanner {
  planStop(
    trx: Executor,
    build: { accountId: string; buildId: string; runtime: string },
  ): Promise<PlannedTask[]>;
}

/** What the effects use: the store's own. */
export interface EffectDeps {
  ctx: ServerContext;
  wakeups: SchedulingWakeups;
  stops: StopPlanner;
}

/** The build a move changed, and when. */
export interface MovedBuild {
  buildId: string;
  accountId: string;
  runtime: string | null;
  at: Date;
}

/** Carries out `effect` of a move of `build`, in the move's transaction. */
export async function carryOutEffect(
  trx: Executor,
  effect: BuildEffect,
  build: MovedBuild,
  deps: EffectDeps,
): Promise<void> {
  switch (effect) {
    case 'stamp-elected':
    case 'stamp-engine-started':
    case 'stamp-finished':
    case 'queue-start-tasks':
      // Written by the move's own statement (the store's `electStarts`, `start`, `finish`).
      return;
    case 'close-steps':
      return closeSteps(trx, build.buildId, build.at);
    case 'revoke-engine-token':
      return revokeEngineToken(trx, build.buildId, new Date(deps.ctx.clock()));
    case 'queue-stop-tasks':
      return queueStopTasks(trx, build, deps);
    case 'publish-end':
      await deps.ctx.signals.publish(trx, CHANNELS.logs, build.buildId);
      await deps.ctx.signals.publish(trx, CHANNELS.builds, build.buildId);
      return;
    case 'schedule':
      await deps.wakeups.announce(trx, build.accountId);
      return;
    default:
      return effect satisfies never;
  }
}

/**
 * Start tasks still queued are dropped and leased ones are never handed out again, so nothing
 * is created after the stop tasks; those are queued when any start task reached an agent, so
 * a build's pods and volume claim never outlive it.
 */
async function queueStopTasks(trx: Executor, build: MovedBuild, deps: EffectDeps): Promise<void> {
  const { runtime } = build;
  const stop =
    runtime !== null && (await wasHandedOut(trx, build.buildId))
      ? await deps.stops.planStop(trx, { ...build, runtime })
      : [];
  await endBuildTasks(deps.ctx, trx, { ...build, stop });
}
