/**
 * The whole step vocabulary of codefresh.yml v1.0 (reference §5.2–5.3): every built-in step type
 * with every field, so a typo is named and a valid-but-not-yet-runnable construct is reported as
 * unsupported rather than ignored. `RUNNABLE_STEP_TYPES` lists what the engine executes.
 * Typed steps are checked through their expanded template.
 * @module
 */
import { hasVariants } from '../expand-variants.js';
import { ISSUE_CODES } from '../pipeline-issue.js';
import { common, conditionModes } from './common-fields.js';
import { hooksSchema } from './hooks-schema.js';
import {
  approvalFields,
  buildFields,
  compositionFields,
  deployFields,
  freestyleFields,
  gitCloneFields,
  pushFields,
  unsupportedTypeFields,
} from './step-fields.js';
import {
  BUILT_IN_STEP_TYPES,
  builtInTypeHint,
  isBuiltInStepType,
  typedExpansion,
} from './step-type-names.js';
import { checkVariants, providedByVariants } from './variant-schema.js';
import {
  any,
  isPlainMap,
  lenientObject,
  list,
  object,
  record,
  reportNotRun,
  required,
  str,
  typeName,
} from './validators.js';
import type { StepTypeName } from './step-type-names.js';
import type { Fields, Schema, SchemaContext } from './validators.js';
import type { IssuePath } from '../pipeline-issue.js';

export { BUILT_IN_STEP_TYPES } from './step-type-names.js';

/** Logical path segment under a typed step for its template's steps (shown as `type` in issues). */
export const TEMPLATE_SEGMENT = '<template>';

const stepSchema: Schema = { describe: 'a step', check: (v, p, c) => checkStep(v, p, c) };
export const stepsMap = record(stepSchema, 'a map of steps');
export const hooks = hooksSchema(stepsMap);

const noHooksOnParallel: Schema = {
  describe: 'nothing',
  check(_value, path, ctx) {
    const message =
      'A parallel step cannot have "hooks" (Codefresh does not support hooks on parallel steps); put them on the steps inside it';
    ctx.report(path, message, { at: 'key' });
  },
};

const parallelFields: Fields = {
  ...common,
  steps: required(stepsMap),
  success_criteria: object('success_criteria', {
    steps: object('success_criteria.steps', { only: list(str) }),
    condition: conditionModes,
  }),
  hooks: noHooksOnParallel,
};

const stepTable: Record<StepTypeName, { fields: Fields; runnable: boolean }> = {
  freestyle: { fields: freestyleFields, runnable: true },
  'git-clone': { fields: gitCloneFields, runnable: true },
  build: { fields: buildFields, runnable: true },
  push: { fields: pushFields, runnable: true },
  composition: { fields: compositionFields, runnable: true },
  'pending-approval': { fields: approvalFields, runnable: true },
  parallel: { fields: parallelFields, runnable: true },
  'launch-composition': { fields: fieldsOf('launch-composition'), runnable: false },
  deploy: { fields: deployFields, runnable: true },
  'push-tag': { fields: fieldsOf('push-tag'), runnable: false },
  'integration-test': { fields: fieldsOf('integration-test'), runnable: false },
  travis: { fields: fieldsOf('travis'), runnable: false },
  simple_travis: { fields: fieldsOf('simple_travis'), runnable: false },
  'freestyle-ssh': { fields: fieldsOf('freestyle-ssh'), runnable: false },
  'github-action': { fields: fieldsOf('github-action'), runnable: false },
};

/** Why each step type Sluice accepts but does not run is not run. */
const NOT_RUN_TYPES: Partial<Record<StepTypeName, string>> = {
  'launch-composition': 'environments that outlive the build are not kept',
  'push-tag': 'use a push step with "tags"',
  'integration-test': 'use a composition step',
  travis: 'Travis files are not read',
  simple_travis: 'Travis files are not read',
  'freestyle-ssh': 'steps do not run on remote hosts over SSH',
  'github-action': 'GitHub Actions are not run',
};

function fieldsOf(type: string): Fields {
  return unsupportedTypeFields[type] ?? common;
}

export const RUNNABLE_STEP_TYPES = BUILT_IN_STEP_TYPES.filter((t) => stepTable[t].runnable);

/** Every field a step of `type` may have, `hooks` included (`matrix`/`scale` are apart). */
function stepFields(type: StepTypeName): Fields {
  const { fields } = stepTable[type];
  return { hooks, ...fields };
}

const variantKeys: Fields = { matrix: any, scale: any };

/** Codefresh's validator lets unknown keys through on these two: Sluice warns instead. */
function stepObject(type: StepTypeName, fields: Fields): Schema {
  const lenient = type === 'freestyle' || type === 'composition';
  return lenient ? lenientObject(`${type} step`, fields) : object(`${type} step`, fields);
}

const schemas = new Map<string, Schema>(
  BUILT_IN_STEP_TYPES.map((t) => [t, stepObject(t, { ...stepFields(t), ...variantKeys })]),
);

function checkStep(value: unknown, path: IssuePath, ctx: SchemaContext): void {
  const name = String(path[path.length - 1]);
  if (!isPlainMap(value)) {
    ctx.report(path, `Step "${name}" must be a map of fields, got ${typeName(value)}`);
    return;
  }
  const rawType = value.type === undefined ? 'freestyle' : value.type;
  if (typeof rawType !== 'string' || rawType.trim() === '') {
    const message = `"type" of step "${name}" must be a step type name, got ${typeName(rawType)}`;
    ctx.report([...path, 'type'], message);
    return;
  }
  if (isBuiltInStepType(rawType)) {
    checkBuiltIn(rawType, value, path, ctx);
    return;
  }
  // A bare name close to a built-in is a typo; anything else is a typed (plugin) step.
  const hint = builtInTypeHint(rawType);
  if (hint !== '') {
    ctx.report([...path, 'type'], `Unknown step type "${rawType}"${hint}`, {
      code: ISSUE_CODES.unknownStepType,
    });
    return;
  }
  checkTypedStep(rawType, value, path, ctx);
}

function checkBuiltIn(
  type: StepTypeName,
  value: Record<string, unknown>,
  path: IssuePath,
  ctx: SchemaContext,
): void {
  const variants = hasVariants(value);
  if (variants && type === 'parallel') {
    const key = value.matrix !== undefined ? 'matrix' : 'scale';
    const message = `A parallel step cannot use "${key}"; put it on a step inside "steps"`;
    ctx.report([...path, key], message, { at: 'key' });
  }
  if (!variants || type === 'parallel') {
    schemas.get(type)?.check(value, path, ctx);
  } else {
    // Fields every variant sets need not be on the step itself.
    const provided = providedByVariants(value);
    const fields: Fields = {};
    for (const [key, spec] of Object.entries(stepFields(type))) {
      fields[key] = provided.has(key) && !('check' in spec) ? { ...spec, required: false } : spec;
    }
    stepObject(type, { ...fields, ...variantKeys }).check(value, path, ctx);
    checkVariants(stepFields(type), value, path, ctx);
  }
  const why = NOT_RUN_TYPES[type];
  if (why !== undefined) {
    const construct = `Step type "${type}"`;
    reportNotRun(ctx, { construct, why, effect: 'fails', path: [...path, 'type'], at: 'value' });
  }
}

const typedStepSchema = object('typed step', { ...common, hooks, arguments: any });

function checkTypedStep(
  type: string,
  value: Record<string, unknown>,
  path: IssuePath,
  ctx: SchemaContext,
): void {
  typedStepSchema.check(value, path, ctx);
  const expansion = typedExpansion(value);
  if (expansion === undefined) return; // the expansion reported why
  const inTemplate: SchemaContext = {
    report: (at, message, options) =>
      ctx.report(at, `${message} (in the template of step type "${expansion.stepType}")`, options),
  };
  const templatePath = [...path, TEMPLATE_SEGMENT];
  for (const [innerName, inner] of Object.entries(expansion.steps)) {
    checkStep(inner, [...templatePath, innerName], inTemplate);
  }
  if (Object.keys(expansion.steps).length === 0) {
    ctx.report([...path, 'type'], `Step type "${type}" has no steps in its template`);
  }
}
