/**
 * Turns a document that passed validation into the typed `Pipeline`: the fields every step has,
 * then each type's own (build-model-steps.ts); `matrix`/`scale` copies and typed-step templates
 * are expanded here, so the engine sees only ordinary steps.
 * @module
 */
import {
  buildApproval,
  buildBuild,
  buildComposition,
  buildFreestyle,
  buildGitClone,
  buildPush,
} from './build-model-steps.js';
import { buildDeploy } from './deploy-step.js';
import { rootServicesSpecs } from './build-model-services.js';
import {
  asBool,
  asList,
  asMap,
  asNumber,
  environmentPairs,
  optionalString,
} from './build-model-values.js';
import { buildConditions, buildWhen } from './build-model-when.js';
import { hasVariants, stepVariants } from './expand-variants.js';
import { DEFAULT_HOOK_IMAGE } from './hook-forms.js';
import { parseDuration } from './schema/duration.js';
import { HOOK_NAMES } from './schema/hooks-schema.js';
import { TEMPLATE_SEGMENT } from './schema/step-schemas.js';
import { typedExpansion } from './schema/step-type-names.js';
import { scalarText } from './schema/validators.js';
import type { Base } from './build-model-steps.js';
import type { Raw } from './build-model-values.js';
import { withoutImplicitClone } from './implicit-clone.js';
import { readPostStepOperations } from './post-step-operations.js';
import type { Hook, Hooks, ParallelStep, Pipeline, Position, RetryPolicy, Step } from './model.js';
import type { SourceView } from './path-map.js';
import type { IssuePath } from './pipeline-issue.js';

interface Defaults {
  source: SourceView;
  failFast: boolean;
  strictFailFast: boolean;
}

interface StepInput {
  name: string;
  raw: Raw;
  /** Where the step is written; copies and template steps use their origin's. */
  path: IssuePath;
  position?: Position;
  origin?: Step['origin'];
  /** A parallel block's timeout, for children that set none. */
  inheritedTimeoutMs?: number;
}

export function buildPipeline(root: Raw, source: SourceView): Pipeline {
  const defaults: Defaults = {
    source,
    failFast: asBool(root.fail_fast, true),
    strictFailFast: asBool(root.strict_fail_fast, false),
  };
  return {
    file: source.file,
    version: '1.0',
    stages: asList(root.stages) ?? [],
    mode: root.mode === 'parallel' ? 'parallel' : 'sequential',
    failFast: defaults.failFast,
    strictFailFast: defaults.strictFailFast,
    hooks: buildHooks(root.hooks, ['hooks'], defaults),
    services: rootServicesSpecs(root.services),
    steps: withoutImplicitClone(buildSteps(root.steps, ['steps'], defaults)),
    // Filled in from the parse's warnings by parsePipeline.
    notRun: [],
  };
}

function buildSteps(raw: unknown, path: IssuePath, defaults: Defaults, inherited?: number): Step[] {
  return Object.entries(asMap(raw) ?? {}).map(([name, step]) =>
    buildStep(
      { name, raw: asMap(step) ?? {}, path: [...path, name], inheritedTimeoutMs: inherited },
      defaults,
    ),
  );
}

function buildStep(input: StepInput, defaults: Defaults): Step {
  const { raw } = input;
  const type = raw.type === undefined ? 'freestyle' : scalarText(raw.type);
  if (hasVariants(raw) && type !== 'parallel') return buildImplicitParallel(input, defaults);
  const base = buildBase(input, defaults, type === 'pending-approval');
  const expansion = typedExpansion(raw);
  if (expansion !== undefined) {
    const templatePath = [...input.path, TEMPLATE_SEGMENT];
    // The typed step's working_directory reaches the template's steps that set none.
    const inherited =
      raw.working_directory === undefined ? {} : { working_directory: raw.working_directory };
    const steps = Object.entries(expansion.steps).map(([inner, step]) =>
      buildStep(
        {
          name: `${input.name}_${inner}`,
          raw: { ...inherited, ...(asMap(step) ?? {}) },
          path: [...templatePath, inner],
          position: base.position,
          origin: { step: input.name, kind: 'step-type', label: expansion.stepType },
        },
        defaults,
      ),
    );
    return { ...base, type: 'group', stepType: expansion.stepType, steps };
  }
  switch (type) {
    case 'git-clone':
      return buildGitClone(base, raw);
    case 'build':
      return buildBuild(base, raw);
    case 'push':
      return buildPush(base, raw);
    case 'composition':
      return buildComposition(base, raw);
    case 'pending-approval':
      return buildApproval(base, raw);
    case 'parallel':
      return buildParallel(base, input, defaults);
    case 'deploy':
      return buildDeploy(base, raw);
    default:
      return buildFreestyle(base, raw);
  }
}

function buildBase(input: StepInput, defaults: Defaults, approval: boolean): Base {
  const { raw, path } = input;
  const timeout = parseDuration(raw.timeout);
  return {
    name: input.name,
    title: optionalString(raw.title),
    description: optionalString(raw.description),
    stage: optionalString(raw.stage),
    workingDirectory: optionalString(raw.working_directory),
    failFast: asBool(raw.fail_fast, defaults.failFast),
    strictFailFast: asBool(raw.strict_fail_fast, defaults.strictFailFast),
    when: buildWhen(raw.when, [...path, 'when'], defaults.source),
    // An approval's `timeout` is its own map, read by its builder.
    timeoutMs:
      approval || raw.timeout === undefined
        ? input.inheritedTimeoutMs
        : timeout.ok
          ? timeout.ms
          : undefined,
    retry: buildRetry(raw.retry),
    hooks: buildHooks(raw.hooks, [...path, 'hooks'], defaults),
    ...postStepOf(raw),
    origin: input.origin,
    position: input.position ?? defaults.source.locate(path, 'key'),
  };
}

function buildParallel(base: Base, input: StepInput, defaults: Defaults): ParallelStep {
  const { raw, path } = input;
  const criteria = asMap(raw.success_criteria);
  const only = asList(asMap(criteria?.steps)?.only);
  const conditions = buildConditions(
    criteria?.condition,
    [...path, 'success_criteria', 'condition'],
    defaults.source,
  );
  return {
    ...base,
    type: 'parallel',
    steps: buildSteps(raw.steps, [...path, 'steps'], defaults, base.timeoutMs),
    successCriteria: criteria === undefined ? undefined : { only, conditions },
  };
}

/** What the block keeps of a step with `matrix`/`scale`; the rest goes to each copy. */
const BLOCK_FIELDS = [
  'title',
  'description',
  'stage',
  'when',
  'fail_fast',
  'strict_fail_fast',
  'timeout',
];

function buildImplicitParallel(input: StepInput, defaults: Defaults): ParallelStep {
  const blockRaw = Object.fromEntries(
    BLOCK_FIELDS.filter((k) => k in input.raw).map((k) => [k, input.raw[k]]),
  );
  const base = buildBase({ ...input, raw: blockRaw }, defaults, false);
  const steps = stepVariants(input.name, input.raw).map((variant) =>
    buildStep(
      {
        name: variant.name,
        raw: variant.raw,
        path: input.path,
        position: base.position,
        origin: { step: input.name, kind: variant.kind, label: variant.label },
        inheritedTimeoutMs: base.timeoutMs,
      },
      defaults,
    ),
  );
  return { ...base, type: 'parallel', steps, successCriteria: undefined };
}

function postStepOf(raw: Raw): Pick<Base, 'postStep'> {
  const [onSuccess, onFail, onFinish] = [raw.on_success, raw.on_fail, raw.on_finish].map(
    readPostStepOperations,
  );
  if (!onSuccess && !onFail && !onFinish) return {};
  return { postStep: { onSuccess, onFail, onFinish } };
}

function buildRetry(raw: unknown): RetryPolicy | undefined {
  const retry = asMap(raw);
  if (retry === undefined) return undefined;
  return {
    maxAttempts: asNumber(retry.maxAttempts, 1),
    delaySeconds: asNumber(retry.delay, 5),
    exponentialFactor: asNumber(retry.exponentialFactor, 1),
  };
}

function buildHooks(raw: unknown, path: IssuePath, defaults: Defaults): Hooks {
  const hooks = asMap(raw) ?? {};
  const out: Hooks = {};
  const keys = {
    on_elected: 'onElected',
    on_success: 'onSuccess',
    on_fail: 'onFail',
    on_finish: 'onFinish',
  } as const;
  for (const name of HOOK_NAMES) {
    const hook = asMap(hooks[name]);
    if (hook !== undefined) out[keys[name]] = buildHook(hook, [...path, name], defaults);
  }
  return out;
}

function buildHook(raw: Raw, path: IssuePath, defaults: Defaults): Hook {
  const exec = asMap(raw.exec);
  const annotations = readPostStepOperations(raw)?.annotations;
  return {
    exec:
      exec === undefined
        ? undefined
        : {
            image: exec.image === undefined ? DEFAULT_HOOK_IMAGE : scalarText(exec.image),
            commands: asList(exec.commands) ?? [],
            shell: exec.shell === 'bash' ? 'bash' : 'sh',
            environment: environmentPairs(exec.environment),
          },
    steps:
      raw.steps === undefined ? undefined : buildSteps(raw.steps, [...path, 'steps'], defaults),
    mode: raw.mode === 'parallel' ? 'parallel' : 'sequential',
    failFast: asBool(raw.fail_fast, true),
    ...(annotations === undefined ? {} : { annotations }),
  };
}
