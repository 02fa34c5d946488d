/**
 * The order steps run in. `runSequence`: one after another; a failing `fail_fast` step skips the
 * rest. `runDag` (`mode: parallel` pipelines): every step whose `when.steps` dependencies are
 * met starts at once, the others wait or are skipped once they can no longer be met.
 * `runParallel`: a `type: parallel` block, children at once; with `fail_fast` a failing child
 * stops its running siblings. `runGroup`: a typed step's expanded steps, in order.
 * @module
 */
import type { GroupStep, ParallelStep, Step } from '@sluice/pipeline';
import type { StepSummary } from '../base/build-events.js';
import type { StepOutcome } from '../base/step-runtime.js';
import { evaluateWhen } from '../base/step-conditions.js';
import type { BuildFlow, Lane } from '../base/build-flow.js';
import { CANCELLED, isFailure, readinessOf } from '../base/step-readiness.js';
import { skipStep } from './step-summaries.js';

export interface ListOutcome {
  /** A `fail_fast` step failed, or a `strict_fail_fast` one did. */
  failed: boolean;
  /** The first failing step that decided `failed`. */
  failedStep?: string;
  terminated: boolean;
}

export async function runSequence(
  steps: readonly Step[],
  flow: BuildFlow,
  lane: Lane,
): Promise<ListOutcome> {
  const outcome: ListOutcome = { failed: false, terminated: false };
  let halted: string | undefined;
  for (const step of steps) {
    if (lane.signal?.aborted) halted ??= CANCELLED;
    if (halted !== undefined) {
      skipStep(step, halted, flow, lane);
      continue;
    }
    const summary = await flow.runStep(step, flow, lane);
    if (summary.result === 'terminated') {
      outcome.terminated = true;
      halted = CANCELLED;
    } else if (countFailure(step, summary, flow, outcome) && step.failFast) {
      halted = `step "${step.name}" failed`;
    }
  }
  outcome.terminated ||= lane.signal?.aborted === true;
  return outcome;
}

/** Records a failure in the scope and the outcome; true when the step failed. */
function countFailure(
  step: Step,
  summary: StepSummary,
  flow: BuildFlow,
  outcome: ListOutcome,
): boolean {
  if (!isFailure(summary.result)) return false;
  flow.runtime.scope.workflowResult = 'failure';
  if (step.failFast || step.strictFailFast) {
    outcome.failed = true;
    outcome.failedStep ??= step.name;
  }
  return true;
}

/**
 * `mode: parallel`: dependencies are re-evaluated whenever a step ends. After a `fail_fast`
 * failure only steps that wait for a failure (`on: [failure]` or `finished`) still start.
 */
export async function runDag(
  steps: readonly Step[],
  flow: BuildFlow,
  lane: Lane,
): Promise<ListOutcome> {
  const outcome: ListOutcome = { failed: false, terminated: false };
  const pending = new Set(steps);
  const running = new Map<Step, Promise<void>>();
  let halted: string | undefined;
  const resultOf = (name: string) => flow.runtime.scope.resultOf(name);
  const startReady = () => {
    for (const step of [...pending]) {
      if (lane.signal?.aborted) halted ??= CANCELLED;
      const readiness = readinessOf(step.when?.steps, resultOf, halted);
      if (readiness === 'wait') continue;
      pending.delete(step);
      if (readiness !== 'run') {
        skipStep(step, readiness.skip, flow, lane);
        continue;
      }
      const done = flow.runStep(step, flow, lane).then((summary) => {
        running.delete(step);
        if (summary.result === 'terminated') outcome.terminated = true;
        else if (countFailure(step, summary, flow, outcome) && step.failFast)
          halted ??= `step "${step.name}" failed`;
      });
      running.set(step, done);
    }
  };
  startReady();
  while (running.size > 0) {
    await Promise.race(running.values());
    startReady();
    // A skip can make others decidable; loop until nothing changes.
    let before = -1;
    while (before !== pending.size) {
      before = pending.size;
      startReady();
    }
  }
  for (const step of pending)
    skipStep(step, 'its when.steps dependencies were never met', flow, lane);
  outcome.terminated ||= lane.signal?.aborted === true;
  return outcome;
}

/** Children at once; the block's result follows `success_criteria`, or its fail-fast children. */
export async function runParallel(
  block: ParallelStep,
  flow: BuildFlow,
  lane: Lane,
): Promise<StepOutcome> {
  const stop = new AbortController();
  const signal = lane.signal ? AbortSignal.any([lane.signal, stop.signal]) : stop.signal;
  const settled = await Promise.allSettled(
    block.steps.map(async (child) => {
      if (signal.aborted) return skipStep(child, CANCELLED, flow, { ...lane, signal });
      const summary = await flow.runStep(child, flow, { ...lane, signal });
      if (isFailure(summary.result) && child.failFast && block.failFast && !stop.signal.aborted)
        stop.abort(`Stopped because step "${child.name}" failed (fail_fast)`);
      return summary;
    }),
  );
  const rejected = settled.find((s) => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  const summaries = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  if (lane.signal?.aborted) return { result: 'terminated', reason: 'The build was cancelled' };
  return parallelResult(block, summaries, flow);
}

function parallelResult(
  block: ParallelStep,
  children: StepSummary[],
  flow: BuildFlow,
): StepOutcome {
  const criteria = block.successCriteria;
  if (criteria?.conditions !== undefined) {
    const decision = evaluateWhen(
      { conditions: criteria.conditions },
      flow.runtime.scope,
      flow.pipeline.file,
    );
    if (decision.run) return { result: 'success' };
    return {
      result: 'failure',
      reason: 'error' in decision ? decision.error : 'success_criteria.condition is false',
    };
  }
  const deciding = criteria?.only
    ? children.filter((c) => criteria.only?.includes(c.name))
    : children.filter((c) => {
        const step = block.steps.find((s) => s.name === c.name);
        return step !== undefined && (step.failFast || step.strictFailFast);
      });
  const failed = deciding.filter((c) =>
    criteria?.only ? c.result !== 'success' : isFailure(c.result),
  );
  if (failed.length === 0) return { result: 'success' };
  return {
    result: 'failure',
    reason: `Parallel step failed: ${failed.map((c) => `${c.name} (${c.result})`).join(', ')}`,
  };
}

/** A typed step's template steps, in order, as one step. */
export async function runGroup(
  group: GroupStep,
  flow: BuildFlow,
  lane: Lane,
): Promise<StepOutcome> {
  const outcome = await runSequence(group.steps, flow, lane);
  if (outcome.terminated) return { result: 'terminated', reason: 'The build was cancelled' };
  if (outcome.failed)
    return {
      result: 'failure',
      reason: `Step "${outcome.failedStep ?? '?'}" of ${group.stepType} failed`,
    };
  return { result: 'success' };
}
