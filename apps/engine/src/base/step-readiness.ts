/**
 * When a step of a `mode: parallel` pipeline (or hook) may start, as a pure function of the
 * results so far: its `when.steps` dependencies (`all` or `any`; each met `on` success,
 * failure, skipped or finished), and whether a `fail_fast` failure or a cancel has halted the
 * build. No Docker, no scope object: `runDag` (step-scheduler.ts) asks this for each waiting
 * step whenever one ends, and the rules are unit-tested here (step-readiness.test.ts).
 * @module
 */
import type { StepWhen, StepDependency } from '@sluice/pipeline';
import type { StepResult } from './build-events.js';
import type { StepState } from './build-scope.js';

/** What halts a build's remaining steps once it is cancelled; also the reason they are skipped. */
export const CANCELLED = 'build terminated';

export type Readiness = 'run' | 'wait' | { skip: string };

/** A step's state by name; undefined for a step the build has not seen yet. */
export type ResultOf = (step: string) => StepState | undefined;

/** Results that count as a failed step for `fail_fast` and the build's result. */
export function isFailure(result: StepResult): boolean {
  return result === 'failure' || result === 'timeout' || result === 'denied';
}

/**
 * `run` now, `wait` for a dependency still pending or running, or `skip` with the reason: its
 * dependencies can no longer be met, the build was cancelled (`halted` is `CANCELLED`), or a
 * `fail_fast` step failed (`halted` says which) and this step does not handle failures.
 */
export function readinessOf(
  when: StepWhen['steps'],
  resultOf: ResultOf,
  halted: string | undefined,
): Readiness {
  if (halted === CANCELLED) return { skip: CANCELLED };
  if (when === undefined || when.dependencies.length === 0)
    return halted === undefined ? 'run' : { skip: halted };
  const states = when.dependencies.map((dep) => dependencyState(dep, resultOf));
  const met = states.filter((s) => s === 'met');
  const decided = states.every((s) => s !== 'waiting');
  const ready = when.mode === 'all' ? met.length === states.length : met.length > 0;
  if (ready) {
    if (halted === undefined) return 'run';
    // After a fail-fast failure, only failure handlers still run.
    const handlesFailure = when.dependencies.some((d) => d.on.some((on) => on !== 'success'));
    return handlesFailure ? 'run' : { skip: halted };
  }
  if (when.mode === 'all' ? states.includes('unmet') : decided)
    return { skip: `when.steps: ${describeDependencies(when.dependencies)} not met` };
  return 'wait';
}

function dependencyState(dep: StepDependency, resultOf: ResultOf): 'met' | 'unmet' | 'waiting' {
  const state = resultOf(dep.step);
  if (state === undefined || state === 'pending' || state === 'running') return 'waiting';
  const result: StepResult = state;
  const matches = dep.on.some(
    (on) => on === 'finished' || on === result || (on === 'failure' && isFailure(result)),
  );
  return matches ? 'met' : 'unmet';
}

function describeDependencies(deps: readonly StepDependency[]): string {
  return deps.map((d) => `${d.step} on ${d.on.join('|')}`).join(', ');
}
