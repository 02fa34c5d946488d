/**
 * A step's post-step operations (`on_success`, `on_fail`, `on_finish` with `annotations` or
 * `metadata`), and those of a hook (step-hooks.ts): once the step ends that way, or the hook has
 * run, the names, text values and images are interpolated
 * with the build's variables, secrets in them masked, checked against the control plane's limits
 * (the same `applyAnnotationChanges`), kept on the flow for the build's summary and reported as
 * an `annotations` event. A change the limits refuse is named in the step's log and not kept; it
 * never changes the step's result.
 * @module
 */
import { interpolate } from '@sluice/pipeline';
import type { AnnotationOperation, PostStepOperations, Step } from '@sluice/pipeline';
import { AnnotationChange, applyAnnotationChanges } from '@sluice/protocol';
import type { AnnotationValue } from '@sluice/protocol';
import type { StepResult } from '../base/build-events.js';
import type { BuildFlow } from '../base/build-flow.js';
import { isFailure } from '../base/step-readiness.js';

/** Applies and reports the operations of `step` that its `result` calls for. */
export function annotateStep(step: Step, result: StepResult, flow: BuildFlow): void {
  const post = step.postStep;
  if (post === undefined) return;
  const which: (PostStepOperations | undefined)[] = [
    result === 'success' ? post.onSuccess : isFailure(result) ? post.onFail : undefined,
    post.onFinish,
  ];
  applyAnnotations(
    which.flatMap((ops) => ops?.annotations ?? []),
    step.name,
    flow,
  );
}

/**
 * Applies `operations` in order and reports them as `step`'s (a step, or a hook as
 * `<owner>.<hook>`): each one the limits refuse is named in that step's log and left out.
 */
export function applyAnnotations(
  operations: readonly AnnotationOperation[],
  step: string,
  flow: BuildFlow,
): void {
  if (operations.length === 0) return;
  const changes: AnnotationChange[] = [];
  for (const operation of operations) {
    const change = resolve(operation, flow);
    const applied = change.ok ? applyAnnotationChanges(flow.annotations, [change.value]) : change;
    if (!applied.ok) {
      say(flow, step, `Annotations not kept: ${applied.problem}`);
      continue;
    }
    flow.annotations = applied.value;
    if (change.ok) changes.push(change.value);
  }
  if (changes.length > 0)
    flow.runtime.emit({ type: 'annotations', step, changes, at: flow.runtime.clock() });
}

type Resolved = { ok: true; value: AnnotationChange } | { ok: false; problem: string };

function resolve(operation: AnnotationOperation, flow: BuildFlow): Resolved {
  const { scope, masker } = flow.runtime;
  const text = (value: string) => masker.mask(interpolate(value, (name) => scope.lookup(name)));
  const value = (v: AnnotationValue): AnnotationValue => (typeof v === 'string' ? text(v) : v);
  const candidate = {
    entity: operation.entity,
    ...(operation.image === undefined ? {} : { image: text(operation.image) }),
    set: Object.fromEntries(operation.set.map(([name, v]) => [text(name), value(v)])),
    unset: operation.unset.map(text),
  };
  const parsed = AnnotationChange.safeParse(candidate);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue === undefined ? '' : issue.path.map(String).join('.');
  const what = operation.entity === 'image' ? `image ${candidate.image ?? ''}` : 'the build';
  return {
    ok: false,
    problem: `an annotation of ${what} is refused at ${where}: ${issue?.message ?? 'invalid'}`,
  };
}

function say(flow: BuildFlow, step: string, line: string): void {
  flow.runtime.emit({
    type: 'step-log',
    step,
    stream: 'system',
    line,
    at: flow.runtime.clock(),
  });
}
