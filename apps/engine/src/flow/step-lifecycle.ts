/**
 * One step from start to finish, whatever its type: `when` decides whether it runs, then its
 * `on_elected` hook, its services, its attempts (`retry`, each limited by `timeout`), its
 * `on_success`/`on_fail` and `on_finish` hooks and post-step annotations, and the events and
 * scope updates that report it.
 * Parallel blocks and step groups come back here for each child (see step-scheduler.ts).
 * @module
 */
import { describeError } from '@sluice/errors';
import { interpolate } from '@sluice/pipeline';
import type { ApprovalStep, Step } from '@sluice/pipeline';
import type { StepSummary } from '../base/build-events.js';
import { evaluateWhen } from '../base/step-conditions.js';
import { executeStep, interpolateDeep } from '../steps/execute-step.js';
import type { StepOutcome, StepRuntime } from '../base/step-runtime.js';
import { runApproval } from '../steps/step-approval.js';
import { startServices } from '../steps/step-services.js';
import type { RunningServices } from '../steps/step-services.js';
import { runHook } from './step-hooks.js';
import { annotateStep } from './step-annotations.js';
import { abortableSleep, formatDuration } from '../base/durations.js';
import type { BuildFlow, Lane } from '../base/build-flow.js';
import { isFailure } from '../base/step-readiness.js';
import { runGroup, runParallel } from './step-scheduler.js';
import { missingGroupImage } from './group-images.js';
import { record, skipStep } from './step-summaries.js';

export async function runStep(step: Step, flow: BuildFlow, lane: Lane): Promise<StepSummary> {
  const { runtime } = flow;
  runtime.scope.register(step);
  const decision = evaluateWhen(
    { branch: step.when?.branch, conditions: step.when?.conditions },
    runtime.scope,
    flow.pipeline.file,
  );
  if (!decision.run && 'reason' in decision) return skipStep(step, decision.reason, flow, lane);
  const started = runtime.clock();
  const title = titleOf(step, runtime);
  emitStarted(step, flow, lane, 1, title);
  runtime.scope.setStep(step.name, { result: 'running' });

  let outcome: StepOutcome & { attempts?: number };
  if (!decision.run) {
    outcome = {
      result: 'failure',
      reason: 'error' in decision ? decision.error : 'condition failed',
    };
  } else if (!(await runHook(step.hooks.onElected, 'on_elected', step.name, flow, lane))) {
    outcome = { result: 'failure', reason: `The on_elected hook of step "${step.name}" failed` };
  } else {
    outcome = await runWithServices(step, flow, lane, title);
  }
  const reason = outcome.reason === undefined ? undefined : runtime.masker.mask(outcome.reason);
  if (reason !== undefined) log(flow, step.name, reason);
  runtime.scope.setStep(step.name, { result: outcome.result });
  if (lane.signal?.aborted !== true) {
    // on_success/on_fail/on_finish never change the step's result (reference §5.6).
    if (outcome.result === 'success')
      await runHook(step.hooks.onSuccess, 'on_success', step.name, flow, lane);
    else if (isFailure(outcome.result))
      await runHook(step.hooks.onFail, 'on_fail', step.name, flow, lane);
    await runHook(step.hooks.onFinish, 'on_finish', step.name, flow, lane);
  }
  annotateStep(step, outcome.result, flow);
  const durationMs = runtime.clock() - started;
  runtime.emit({
    type: 'step-finished',
    step: step.name,
    result: outcome.result,
    exitCode: outcome.exitCode,
    reason,
    durationMs,
    at: runtime.clock(),
  });
  return record(flow, {
    name: step.name,
    title: step.title,
    parent: lane.parent,
    result: outcome.result,
    exitCode: outcome.exitCode,
    reason,
    attempts: outcome.attempts,
    durationMs,
  });
}

async function runWithServices(
  step: Step,
  flow: BuildFlow,
  lane: Lane,
  title: string | undefined,
): Promise<StepOutcome & { attempts?: number }> {
  let services: RunningServices | undefined;
  try {
    // Blocks the step only names (`services: [db]`) run for the whole build already.
    if (step.type === 'freestyle' && step.services && step.services.services.length > 0) {
      const spec = interpolateDeep(step.services, flow.runtime.scope);
      services = await startServices([spec], step.name, { ...flow.runtime, signal: lane.signal });
    }
  } catch (err) {
    return { result: lane.signal?.aborted ? 'terminated' : 'failure', reason: describeError(err) };
  }
  try {
    return await runAttempts(step, flow, lane, title);
  } finally {
    await services
      ?.stop()
      .catch((err: unknown) =>
        flow.runtime.log.warn('could not stop step services', { error: describeError(err) }),
      );
  }
}

/** `retry`: the step runs again after a failure or timeout, `delay × factor^(n−1)` seconds apart. */
async function runAttempts(
  step: Step,
  flow: BuildFlow,
  lane: Lane,
  title: string | undefined,
): Promise<StepOutcome & { attempts?: number }> {
  const max = step.retry?.maxAttempts ?? 1;
  for (let attempt = 1; ; attempt++) {
    const outcome = await runAttempt(step, flow, lane, attempt, max);
    const retriable = outcome.result === 'failure' || outcome.result === 'timeout';
    if (!retriable || attempt >= max || lane.signal?.aborted)
      return max > 1 ? { ...outcome, attempts: attempt } : outcome;
    const retry = step.retry ?? { delaySeconds: 0, exponentialFactor: 1 };
    const delayMs = retry.delaySeconds * 1000 * retry.exponentialFactor ** (attempt - 1);
    log(
      flow,
      step.name,
      `Attempt ${attempt} of ${max} failed: ${flow.runtime.masker.mask(outcome.reason ?? outcome.result)}; ` +
        `next attempt in ${formatDuration(delayMs)}`,
    );
    if (!(await abortableSleep(delayMs, lane.signal)))
      return {
        result: 'terminated',
        reason: 'The build was cancelled between attempts',
        attempts: attempt,
      };
    emitStarted(step, flow, lane, attempt + 1, title);
  }
}

async function runAttempt(
  step: Step,
  flow: BuildFlow,
  lane: Lane,
  attempt: number,
  maxAttempts: number,
): Promise<StepOutcome> {
  const timeout = new AbortController();
  // An approval's `timeout` is when its final state applies (step-approval.ts), not a failure.
  const timer =
    step.timeoutMs === undefined || step.type === 'pending-approval'
      ? undefined
      : setTimeout(
          () => timeout.abort(`The step timed out after ${formatDuration(step.timeoutMs ?? 0)}`),
          step.timeoutMs,
        );
  const signal = lane.signal ? AbortSignal.any([lane.signal, timeout.signal]) : timeout.signal;
  const runtime: StepRuntime = {
    ...flow.runtime,
    signal,
    attempt,
    stepEnvironment: [`CF_CURRENT_ATTEMPT=${attempt}`, `CF_MAX_ATTEMPTS=${maxAttempts}`],
  };
  try {
    const outcome = await runByType(step, flow, { parent: step.name, signal }, runtime);
    if (outcome.result !== 'terminated') return outcome;
    if (timeout.signal.aborted && lane.signal?.aborted !== true)
      return { ...outcome, result: 'timeout', reason: String(timeout.signal.reason) };
    // A sibling's fail_fast stops this step with a reason worth showing.
    const why: unknown = lane.signal?.reason;
    return typeof why === 'string' ? { ...outcome, reason: why } : outcome;
  } finally {
    clearTimeout(timer);
  }
}

async function runByType(
  step: Step,
  flow: BuildFlow,
  inner: Lane,
  runtime: StepRuntime,
): Promise<StepOutcome> {
  switch (step.type) {
    case 'parallel':
      return runParallel(step, flow, inner);
    case 'group': {
      // Its images first: a step type that cannot run here fails before its first step.
      const missing = await missingGroupImage(step, runtime);
      if (missing !== undefined) return { result: 'failure', reason: runtime.masker.mask(missing) };
      return runGroup(step, flow, inner);
    }
    case 'pending-approval':
      return runApproval(approvalWithTitle(step, runtime), runtime, flow.approve);
    case 'freestyle':
    case 'git-clone':
    case 'build':
    case 'push':
    case 'composition':
      return executeStep(step, runtime);
  }
}

function approvalWithTitle(step: ApprovalStep, runtime: StepRuntime): ApprovalStep {
  return step.title === undefined ? step : { ...step, title: titleOf(step, runtime) };
}

function emitStarted(
  step: Step,
  flow: BuildFlow,
  lane: Lane,
  attempt: number,
  title: string | undefined,
): void {
  flow.runtime.emit({
    type: 'step-started',
    step: step.name,
    title,
    parent: lane.parent,
    attempt: step.retry && step.retry.maxAttempts > 1 ? attempt : undefined,
    at: flow.runtime.clock(),
  });
}

/** A title may interpolate a secret (`Deploy with ${{TOKEN}}`); events are shown to people. */
function titleOf(step: Step, runtime: StepRuntime): string | undefined {
  return step.title && runtime.masker.mask(interpolate(step.title, (n) => runtime.scope.lookup(n)));
}

function log(flow: BuildFlow, step: string, line: string): void {
  flow.runtime.emit({ type: 'step-log', step, stream: 'system', line, at: flow.runtime.clock() });
}
