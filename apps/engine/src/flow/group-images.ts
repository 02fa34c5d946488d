/**
 * The images a typed step's expanded steps will run, made present before the first of them
 * starts: a step type whose last step needs an image this engine cannot get (helm's, where no
 * registry can be reached) then fails at once with the image-not-found message and how to load
 * the image, instead of after its earlier steps ran. Only images known before the group starts
 * count: fixed text (no `${{…}}`) in unconditional freestyle steps of a group that builds no
 * image of its own (a later step may run what an earlier one builds).
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { GroupStep, Step } from '@sluice/pipeline';
import { ensureImagePresent } from '../containers/container-run.js';
import type { StepRuntime } from '../base/step-runtime.js';

export function imagesKnownBefore(group: GroupStep): string[] {
  const steps = flatten(group.steps);
  if (steps.some((step) => step.type === 'build')) return [];
  const images = steps.flatMap((step) =>
    step.type === 'freestyle' && step.when === undefined && !step.image.includes('${{')
      ? [step.image]
      : [],
  );
  return [...new Set(images)];
}

/** The reason the group cannot start (an image missing that cannot be pulled), or undefined. */
export async function missingGroupImage(
  group: GroupStep,
  runtime: StepRuntime,
): Promise<string | undefined> {
  for (const image of imagesKnownBefore(group)) {
    try {
      await ensureImagePresent(image, group.name, runtime);
    } catch (err) {
      if (isSluiceError(err) && err.category === 'not-found') return err.message;
      throw err;
    }
  }
  return undefined;
}

function flatten(steps: readonly Step[]): Step[] {
  return steps.flatMap((step) =>
    step.type === 'group' || step.type === 'parallel' ? [step, ...flatten(step.steps)] : [step],
  );
}
