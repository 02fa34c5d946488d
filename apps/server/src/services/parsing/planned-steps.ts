/**
 * A build's planned steps follow the pipeline's real tree: every step of it (parallel children,
 * typed-step groups, matrix and scale expansions) with its lane (`parent`) and a stable
 * `position`, depth first. Pure: the parse workers plan them, `build-steps.ts` stores them.
 * @module
 */
import type { StepNeed } from '@sluice/db';
import type { Step } from '@sluice/pipeline';

export interface PlannedStep {
  name: string;
  parent: string | null;
  position: number;
  /** Its own `stage:`, else the stage of the block it runs in; null for none. */
  stage: string | null;
  /** Its `title:` as written, when it names no variable (the engine reports it filled in). */
  title: string | null;
  /** Its `when.steps`. */
  needs: StepNeed[];
  /** How its steps run when it holds steps (a parallel block, a typed step's group). */
  block: 'parallel' | 'sequential' | null;
}

/** Every step of the tree, depth first: a block, then its children, then the next step. */
export function plannedSteps(steps: readonly Step[]): PlannedStep[] {
  const out: PlannedStep[] = [];
  const seen = new Set<string>();
  const visit = (list: readonly Step[], parent: string | null, blockStage: string | null) => {
    for (const step of list) {
      // Names are unique in a valid pipeline; a repeated one keeps its first place.
      if (seen.has(step.name)) continue;
      seen.add(step.name);
      const stage = step.stage ?? blockStage;
      out.push({
        ...{ name: step.name, parent: parent ?? laneOf(step), position: out.length, stage },
        title: step.title !== undefined && !step.title.includes('${{') ? step.title : null,
        needs: (step.when?.steps?.dependencies ?? []).map((d) => ({ step: d.step, on: d.on })),
        block: step.type === 'parallel' ? 'parallel' : step.type === 'group' ? 'sequential' : null,
      });
      if (step.type === 'parallel' || step.type === 'group') visit(step.steps, step.name, stage);
    }
  };
  visit(steps, null, null);
  return out;
}

/** A matrix or scale child outside any block still runs in the lane of the step it came from. */
function laneOf(step: Step): string | null {
  const origin = step.origin;
  if (origin === undefined || origin.kind === 'step-type' || origin.step === step.name) return null;
  return origin.step;
}
