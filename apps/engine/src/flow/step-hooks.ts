/**
 * Hooks of the pipeline and of steps (reference §5.6): `exec` runs one container, shown as a
 * step named `<owner>.<hook>`; `steps` runs a small pipeline of its own (in order, or as a DAG
 * with `mode: parallel`) in the owner's lane; then its `annotations` and `metadata` are set, as
 * a step's `on_success` ones are, reported as `<owner>.<hook>`'s (a hook of only annotations
 * starts no container). Only a failing `on_elected` hook with `fail_fast` (the default) changes
 * its owner's result; the others are reported and otherwise ignored.
 * @module
 */
import type { FreestyleStep, Hook } from '@sluice/pipeline';
import type { BuildFlow, Lane } from '../base/build-flow.js';
import { applyAnnotations } from './step-annotations.js';
import { isFailure } from '../base/step-readiness.js';
import { runDag, runSequence } from './step-scheduler.js';

export type HookName = 'on_elected' | 'on_success' | 'on_fail' | 'on_finish';

/** True unless the hook failed in a way that must fail its owner. */
export async function runHook(
  hook: Hook | undefined,
  name: HookName,
  owner: string,
  flow: BuildFlow,
  lane: Lane,
): Promise<boolean> {
  if (hook === undefined) return true;
  const hookLane: Lane = { parent: `${owner}.${name}`, signal: lane.signal };
  let failed = false;
  if (hook.exec !== undefined) {
    const summary = await flow.runStep(execStep(hook, name, owner), flow, {
      ...lane,
      parent: owner,
    });
    failed = isFailure(summary.result);
  }
  if (hook.steps !== undefined && hook.steps.length > 0 && !failed) {
    const outcome =
      hook.mode === 'parallel'
        ? await runDag(hook.steps, flow, hookLane)
        : await runSequence(hook.steps, flow, hookLane);
    failed = outcome.failed;
  }
  // Whatever its exec and steps did: the hook ran, as Codefresh sets them.
  applyAnnotations(hook.annotations ?? [], `${owner}.${name}`, flow);
  return !(failed && name === 'on_elected' && hook.failFast);
}

function execStep(hook: Hook, name: HookName, owner: string): FreestyleStep {
  const exec = hook.exec ?? { image: '', commands: [], shell: 'sh', environment: [] };
  return {
    type: 'freestyle',
    name: `${owner}.${name}`,
    image: exec.image,
    commands: exec.commands,
    shell: exec.shell,
    environment: exec.environment,
    volumes: [],
    failFast: true,
    strictFailFast: false,
    hooks: {},
    position: { line: 0, column: 0 },
  };
}
