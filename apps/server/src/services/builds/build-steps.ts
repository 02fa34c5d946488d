/**
 * The one writer of `build_steps` (a boundary rule refuses another). A build's step rows follow
 * the pipeline's real tree: at creation every planned step (`planned-steps.ts`) gets a row with
 * its lane and position. Events then upsert by name, so a step the engine adds on its own (hook
 * steps such as `build.on_success`) gets a row at the end instead of being lost.
 * @module
 */
import { jsonb, sql } from '@sluice/db';
import type { Executor } from '@sluice/db';
import type { StepStatus } from '@sluice/protocol';
import type { PlannedStep } from '../parsing/planned-steps.js';

export async function insertPlannedSteps(
  trx: Executor,
  buildId: string,
  steps: readonly PlannedStep[],
): Promise<void> {
  if (steps.length === 0) return;
  await plannedStepsInsert(trx, buildId, steps).execute();
}

/**
 * The insert of a build's planned steps (at least one), for a statement of the store's that
 * inserts the build too (`sql` embeds it as a sub-statement).
 */
export function plannedStepsInsert(
  executor: Executor,
  buildId: string,
  steps: readonly PlannedStep[],
) {
  return executor.insertInto('build_steps').values(plannedStepRows(buildId, steps));
}

/** The rows of a new build's planned steps, all pending. */
function plannedStepRows(buildId: string, steps: readonly PlannedStep[]) {
  return steps.map((s) => ({
    build_id: buildId,
    name: s.name,
    parent: s.parent,
    position: s.position,
    stage: s.stage,
    title: s.title,
    needs: jsonb(s.needs),
    block: s.block,
    status: 'pending' as const,
  }));
}

/** After every row the build has: where a step the engine adds goes. */
function nextPosition(buildId: string) {
  return sql<number>`(select coalesce(max(position), -1) + 1 from build_steps where build_id = ${buildId})`;
}

export interface StepStart {
  step: string;
  /** Its `title:` with its variables filled in (and secrets masked). */
  title?: string;
  parent?: string;
  attempt?: number;
  at: string;
}

/**
 * `step-started`: running, at its attempt. A retry keeps the first start (the step's duration
 * covers every attempt) and clears the previous attempt's outcome.
 */
export async function startStep(trx: Executor, buildId: string, start: StepStart): Promise<void> {
  await trx
    .insertInto('build_steps')
    .values({
      build_id: buildId,
      name: start.step,
      parent: start.parent ?? null,
      attempt: start.attempt ?? 1,
      position: nextPosition(buildId),
      status: 'running',
      title: start.title ?? null,
      started_at: start.at,
    })
    .onConflict((oc) =>
      oc.columns(['build_id', 'name']).doUpdateSet((eb) => ({
        status: 'running',
        attempt: eb.ref('excluded.attempt'),
        parent: sql<string | null>`coalesce(excluded.parent, build_steps.parent)`,
        title: sql<string | null>`coalesce(excluded.title, build_steps.title)`,
        started_at: sql<Date>`coalesce(build_steps.started_at, excluded.started_at)`,
        finished_at: null,
        exit_code: null,
        reason: null,
      })),
    )
    .execute();
}

export interface StepEnd {
  step: string;
  status: StepStatus;
  exitCode?: number | null;
  reason?: string | null;
  at: string;
}

/** `step-finished`: its outcome; a step that never started (skipped) may have no row yet. */
export async function finishStep(trx: Executor, buildId: string, end: StepEnd): Promise<void> {
  const outcome = {
    status: end.status,
    exit_code: end.exitCode ?? null,
    reason: end.reason ?? null,
    finished_at: end.at,
  };
  await trx
    .insertInto('build_steps')
    .values({ build_id: buildId, name: end.step, position: nextPosition(buildId), ...outcome })
    .onConflict((oc) => oc.columns(['build_id', 'name']).doUpdateSet(outcome))
    .execute();
}

/** `approval-requested`: the step waits for an answer. */
export async function awaitApproval(
  trx: Executor,
  buildId: string,
  request: { step: string; at: string },
): Promise<void> {
  await trx
    .insertInto('build_steps')
    .values({
      build_id: buildId,
      name: request.step,
      position: nextPosition(buildId),
      status: 'pending-approval',
      started_at: request.at,
    })
    .onConflict((oc) =>
      oc.columns(['build_id', 'name']).doUpdateSet({ status: 'pending-approval' }),
    )
    .execute();
}

/** Steps answered by a person (`answered_by`) run on. */
export async function answerSteps(
  trx: Executor,
  buildId: string,
  answer: { steps: readonly string[]; actor: string },
): Promise<void> {
  await trx
    .updateTable('build_steps')
    .set({ status: 'running', answered_by: answer.actor })
    .where('build_id', '=', buildId)
    .where('name', 'in', [...answer.steps])
    .execute();
}

/** A build's end closes its steps: pending ones skipped, running or waiting ones terminated. */
export async function closeSteps(trx: Executor, buildId: string, now: Date): Promise<void> {
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
