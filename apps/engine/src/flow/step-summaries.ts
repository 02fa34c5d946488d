/**
 * The summaries a build reports, one per step in the order the steps ended: `record` keeps a
 * step's, `skipStep` gives a step that does not run (and its children) its `skipped` result, in
 * the scope and as an event.
 * @module
 */
import type { Step } from '@sluice/pipeline';
import type { StepSummary } from '../base/build-events.js';
import type { BuildFlow, Lane } from '../base/build-flow.js';

/** A step that does not run still gets its result, in the scope and as an event; so do its children. */
export function skipStep(step: Step, reason: string, flow: BuildFlow, lane: Lane): StepSummary {
  const { runtime } = flow;
  runtime.scope.register(step);
  runtime.scope.setStep(step.name, { result: 'skipped' });
  runtime.emit({
    type: 'step-finished',
    step: step.name,
    result: 'skipped',
    reason,
    durationMs: 0,
    at: runtime.clock(),
  });
  if (step.type === 'parallel' || step.type === 'group') {
    for (const child of step.steps) skipStep(child, reason, flow, { ...lane, parent: step.name });
  }
  return record(flow, {
    name: step.name,
    title: step.title,
    parent: lane.parent,
    result: 'skipped',
    reason,
    durationMs: 0,
  });
}

/** Adds a step's summary to the build's, in the order the steps end. */
export function record(flow: BuildFlow, summary: StepSummary): StepSummary {
  flow.summaries.push(summary);
  return summary;
}
