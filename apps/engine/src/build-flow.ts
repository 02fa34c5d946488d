/**
 * What the scheduler pieces share while one build runs: the pipeline, the build's runtime
 * (Docker, scope, masker, events; its `signal` is the build's cancel), the approval gate, and
 * the summaries of the steps that ended, in the order they ended.
 * @module
 */
import type { Pipeline } from '@sluice/pipeline';
import type { StepResult, StepSummary } from './build-events.js';
import type { ApprovalGate } from './approval-gate.js';
import type { StepRuntime } from './execute-step.js';

export interface BuildFlow {
  pipeline: Pipeline;
  runtime: StepRuntime;
  approve: ApprovalGate | undefined;
  summaries: StepSummary[];
}

/** Where a step runs: the block or group it belongs to, and what stops it (cancel, fail-fast, timeout). */
export interface Lane {
  parent?: string;
  signal: AbortSignal | undefined;
}

/** Results that count as a failed step for `fail_fast` and the build's result. */
export function isFailure(result: StepResult): boolean {
  return result === 'failure' || result === 'timeout' || result === 'denied';
}
