/**
 * What the scheduler pieces share while one build runs: the pipeline, the build's runtime
 * (Docker, scope, masker, events; its `signal` is the build's cancel), the approval gate, the
 * summaries of the steps that ended (in the order they ended), the annotations they set, and the
 * function that runs a step.
 * @module
 */
import type { Pipeline, Step } from '@sluice/pipeline';
import type { BuildAnnotations } from '@sluice/protocol';
import type { StepSummary } from './build-events.js';
import type { ApprovalGate } from './approval-gate.js';
import type { StepRuntime } from './step-runtime.js';

export interface BuildFlow {
  pipeline: Pipeline;
  runtime: StepRuntime;
  approve: ApprovalGate | undefined;
  summaries: StepSummary[];
  /** What the post-step operations of the steps that ended set (step-annotations.ts). */
  annotations: BuildAnnotations;
  /**
   * Runs one step from start to finish (step-lifecycle.ts). Handed in rather than imported, so
   * the scheduler and the hooks, which run steps, and the lifecycle, which runs parallel blocks,
   * groups and hooks through them, do not import each other in a circle.
   */
  runStep: RunStep;
}

export type RunStep = (step: Step, flow: BuildFlow, lane: Lane) => Promise<StepSummary>;

/** Where a step runs: the block or group it belongs to, and what stops it (cancel, fail-fast, timeout). */
export interface Lane {
  parent?: string;
  signal: AbortSignal | undefined;
}
