/**
 * Everything a step can see: system variables, the build's variables and secrets, values
 * exported by earlier steps, and the state of every step (`steps.X.result`, `${{X}}` as its
 * working directory). Precedence, highest first: exports, build variables and secrets, system.
 * @module
 */
import { VOLUME_PATH } from '@sluice/pipeline';
import type { Hooks, Step } from '@sluice/pipeline';
import type { StepResult } from './build-events.js';

export type StepState = StepResult | 'pending' | 'running';
export type WorkflowResult = 'running' | 'failure' | 'terminated' | 'success';

interface StepRecord {
  type: string;
  description: string;
  result: StepState;
  workingDirectory: string;
  members: Record<string, string>;
}

export interface BuildScopeInit {
  system: Record<string, string>;
  variables: Record<string, string>;
  secrets: Record<string, string>;
  /** The pipeline's steps (children and hook steps are found in them) and its hooks' steps. */
  steps: readonly Step[];
}

/** The steps of a pipeline's or step's hooks (`hooks.on_x.steps`). */
export function hookSteps(hooks: Hooks): Step[] {
  return [hooks.onElected, hooks.onSuccess, hooks.onFail, hooks.onFinish].flatMap(
    (hook) => hook?.steps ?? [],
  );
}

/** Every step of the tree: parallel children, group members and hook steps included. */
export function allSteps(steps: readonly Step[]): Step[] {
  const out: Step[] = [];
  const visit = (step: Step) => {
    out.push(step);
    if (step.type === 'parallel' || step.type === 'group') step.steps.forEach(visit);
    hookSteps(step.hooks).forEach(visit);
  };
  steps.forEach(visit);
  return out;
}

export class BuildScope {
  readonly #base: Map<string, string>;
  readonly #exports = new Map<string, string>();
  readonly #steps = new Map<string, StepRecord>();
  workflowResult: WorkflowResult = 'running';
  /** Working directory for steps that name none: the main clone once it succeeded. */
  defaultWorkingDirectory = VOLUME_PATH;

  constructor(init: BuildScopeInit) {
    this.#base = new Map([
      ...Object.entries(init.system),
      ...Object.entries(init.variables),
      ...Object.entries(init.secrets),
    ]);
    for (const step of allSteps(init.steps)) this.register(step);
  }

  /** The steps of a definition read once the build had started (from the repository). */
  registerAll(steps: readonly Step[]): void {
    for (const step of allSteps(steps)) this.register(step);
  }

  /** Every step of the pipeline is known from the start; an exec hook's step joins when it runs. */
  register(step: Step): void {
    if (this.#steps.has(step.name)) return;
    this.#steps.set(step.name, {
      type: step.type,
      description: step.description ?? '',
      result: 'pending',
      workingDirectory: VOLUME_PATH,
      members: {},
    });
  }

  resultOf(name: string): StepState | undefined {
    return this.#steps.get(name)?.result;
  }

  lookup(name: string): string | undefined {
    const direct = this.#exports.get(name) ?? this.#base.get(name);
    if (direct !== undefined) return direct;
    const step = this.#steps.get(name);
    // `${{build_step}}` is the image it built; any other step's name is its working directory.
    if (step !== undefined) return step.members.image ?? step.workingDirectory;
    const member = /^steps\.([^.]+)\.(\w+)$/.exec(name);
    return member ? this.#member(member[1] ?? '', member[2] ?? '') : undefined;
  }

  #member(stepName: string, member: string): string | undefined {
    const step = this.#steps.get(stepName);
    if (step === undefined) return undefined;
    const builtIn: Record<string, string> = {
      name: stepName,
      type: step.type,
      description: step.description,
      workingDirectory: step.workingDirectory,
      result: step.result,
    };
    return builtIn[member] ?? step.members[member];
  }

  /** For condition expressions: `steps.X.result`, `workflow.result`, plain variables. */
  lookupPath(path: readonly string[]): string | undefined {
    if (path.length === 2 && path[0] === 'workflow' && path[1] === 'result')
      return this.workflowResult;
    if (path.length === 3 && path[0] === 'steps') return this.#member(path[1] ?? '', path[2] ?? '');
    return this.lookup(path.join('.'));
  }

  setStep(
    name: string,
    update: Partial<Pick<StepRecord, 'result' | 'workingDirectory' | 'members'>>,
  ): void {
    const step = this.#steps.get(name);
    if (step === undefined) return;
    const { members, ...rest } = update;
    Object.assign(step, rest);
    if (members !== undefined) step.members = { ...step.members, ...members };
  }

  /** System variables learnt during the build (a clone's `CF_REPO_*`); a value already known wins. */
  fillSystem(values: Record<string, string>): void {
    for (const [key, value] of Object.entries(values))
      if (!this.#base.has(key)) this.#base.set(key, value);
  }

  addExports(values: ReadonlyMap<string, string>): void {
    for (const [key, value] of values) this.#exports.set(key, value);
  }

  get exported(): ReadonlyMap<string, string> {
    return this.#exports;
  }

  /** `KEY=value` for every variable, as the step container's environment. */
  environment(): string[] {
    const merged = new Map([...this.#base, ...this.#exports]);
    return [...merged].map(([key, value]) => `${key}=${value}`);
  }
}
