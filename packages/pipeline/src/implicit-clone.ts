/**
 * Codefresh adds a `main_clone` step to a pipeline linked to a repository, and files name it in
 * `when.steps` without writing it. Sluice adds no clone, so a dependency on a `main_clone` the
 * file does not have is met from the start (the parser warns where it is written).
 * @module
 */
import type { Step, StepWhen } from './model.js';

export const IMPLICIT_CLONE = 'main_clone';

export function withoutImplicitClone(steps: Step[]): Step[] {
  const names = new Set<string>();
  const collect = (list: readonly Step[]) => {
    for (const step of list) {
      names.add(step.name);
      if ('steps' in step) collect(step.steps);
    }
  };
  collect(steps);
  return names.has(IMPLICIT_CLONE) ? steps : steps.map(dropClone);
}

function dropClone(step: Step): Step {
  const when = step.when?.steps === undefined ? step.when : withoutCloneDependency(step.when);
  const out: Step = { ...step, when };
  return 'steps' in out ? { ...out, steps: out.steps.map(dropClone) } : out;
}

function withoutCloneDependency(when: StepWhen): StepWhen {
  const steps = when.steps;
  if (steps === undefined) return when;
  const dependencies = steps.dependencies.filter((d) => d.step !== IMPLICIT_CLONE);
  if (dependencies.length === steps.dependencies.length) return when;
  // A met dependency satisfies `any` at once, and `all` of nothing else.
  const met = steps.mode === 'any' || dependencies.length === 0;
  return { ...when, steps: met ? undefined : { ...steps, dependencies } };
}
