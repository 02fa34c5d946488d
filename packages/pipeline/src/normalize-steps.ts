/**
 * Brings the steps of a pipeline to one shape before they are checked: the fields of a built-in
 * step written under `arguments:` are folded into the step (remembering where they were written),
 * a typed step's template is expanded from the catalog, and hooks written in one of Codefresh's
 * shorter forms are brought to the long one (hook-forms.ts). Works on copies: YAML aliases make
 * several steps share one object, and each must be normalized for its own place.
 * @module
 */
import { hasVariants, stepVariants } from './expand-variants.js';
import { hookLongForm } from './hook-forms.js';
import { ISSUE_CODES } from './pipeline-issue.js';
import { HOOK_NAMES } from './schema/hooks-schema.js';
import { TEMPLATE_SEGMENT } from './schema/step-schemas.js';
import { isBuiltInStepType, isTypedStepType, TYPED_EXPANSION } from './schema/step-type-names.js';
import { isPlainMap, typeName } from './schema/validators.js';
import { setKey } from './step-types/values.js';
import { expandTypedStepOrReport } from './typed-step-expansion.js';
import type { PathMap } from './path-map.js';
import type { IssuePath } from './pipeline-issue.js';
import type { TypedExpansion } from './schema/step-type-names.js';
import type { SchemaContext } from './schema/validators.js';
import type { StepTypeCatalog } from './step-types/step-type-catalog.js';

type Raw = Record<string, unknown>;

export interface NormalizeOptions {
  paths: PathMap;
  ctx: SchemaContext;
  stepTypes: StepTypeCatalog | undefined;
}

/** Typed steps whose templates hold typed steps: deeper than this is a loop. */
const MAX_TEMPLATE_DEPTH = 5;

export function normalizePipeline(root: Raw, options: NormalizeOptions): Raw {
  const out = { ...root };
  if (root.steps !== undefined) out.steps = normalizeSteps(root.steps, ['steps'], options, 0);
  if (root.hooks !== undefined) out.hooks = normalizeHooks(root.hooks, ['hooks'], options, 0);
  return out;
}

function normalizeSteps(
  steps: unknown,
  path: IssuePath,
  options: NormalizeOptions,
  depth: number,
): unknown {
  if (!isPlainMap(steps)) return steps;
  const out: Raw = {};
  for (const [name, step] of Object.entries(steps)) {
    setKey(out, name, normalizeStep(step, [...path, name], options, depth));
  }
  return out;
}

function normalizeStep(
  raw: unknown,
  path: IssuePath,
  options: NormalizeOptions,
  depth: number,
): unknown {
  if (!isPlainMap(raw)) return raw;
  let step: Raw = withCodefreshSpellings(raw, path, options);
  if (step.type === undefined && isStepsBlock(step.steps) && step.image === undefined) {
    // Codefresh runs a step that holds `steps:` as a parallel step, `type` or not.
    step.type = 'parallel';
    options.paths.move([...path, 'type'], [...path, 'steps']);
  }
  const type = step.type === undefined ? 'freestyle' : step.type;
  if (typeof type === 'string' && isTypedStepType(type) && hasVariants(step)) {
    return normalizeStep(typedVariants(step, path, options), path, options, depth);
  }
  if (typeof type === 'string' && isBuiltInStepType(type)) {
    step = foldArguments(step, path, options);
    if (type === 'parallel' && step.steps !== undefined) {
      const inner = Array.isArray(step.steps)
        ? stepsFromList(step.steps, [...path, 'steps'], options)
        : step.steps;
      step.steps = normalizeSteps(inner, [...path, 'steps'], options, depth);
    }
  } else if (typeof type === 'string' && isTypedStepType(type)) {
    const expansion = expandTyped(step, type, path, options, depth);
    if (expansion !== undefined) Object.defineProperty(step, TYPED_EXPANSION, { value: expansion });
  }
  if (step.hooks !== undefined)
    step.hooks = normalizeHooks(step.hooks, [...path, 'hooks'], options, depth);
  return step;
}

/**
 * A parallel step's `steps` written as a list of one-step maps (`- lint: {...}`), as some real
 * pipelines do: the same steps as the map form, each found at its place in the list. An item that
 * is not one step is reported and left out.
 */
function stepsFromList(items: unknown[], path: IssuePath, options: NormalizeOptions): unknown {
  const out: Raw = {};
  items.forEach((item, index) => {
    const entries = isPlainMap(item) ? Object.entries(item) : [];
    if (entries.length !== 1) {
      const message = `Item ${index + 1} of "steps" must be one step, a map with one key (the step's name), got ${isPlainMap(item) ? `${entries.length} keys` : typeName(item)}`;
      options.ctx.report([...path, index], message);
      return;
    }
    const [[name, step]] = entries as [[string, unknown]];
    if (Object.hasOwn(out, name)) {
      options.ctx.report([...path, index, name], `Step "${name}" is listed twice in "steps"`, {
        at: 'key',
      });
      return;
    }
    setKey(out, name, step);
    options.paths.move([...path, name], [...path, index, name]);
  });
  return out;
}

function isStepsBlock(value: unknown): boolean {
  return isPlainMap(value) || (Array.isArray(value) && value.length > 0 && value.every(isPlainMap));
}

/** Spellings Codefresh also reads: `image-name` is `image_name`, `fail-fast` is `fail_fast`. */
const SPELLINGS: Record<string, string> = { 'image-name': 'image_name', 'fail-fast': 'fail_fast' };

function withCodefreshSpellings(raw: Raw, path: IssuePath, options: NormalizeOptions): Raw {
  if (!Object.keys(SPELLINGS).some((key) => Object.hasOwn(raw, key))) return { ...raw };
  const out: Raw = {};
  for (const [key, value] of Object.entries(raw)) {
    const field = SPELLINGS[key];
    if (field === undefined) {
      if (!Object.hasOwn(out, key)) setKey(out, key, value);
    } else if (Object.hasOwn(raw, field)) {
      const message = `"${key}" and "${field}" are the same field; write it once`;
      options.ctx.report([...path, key], message, { at: 'key' });
    } else {
      setKey(out, field, value);
      options.paths.move([...path, field], [...path, key]);
    }
  }
  return out;
}

/**
 * A typed step with `scale` or `matrix`: a parallel step of typed steps, one per variant, each
 * expanded from its own arguments. Copies are placed at the step for messages.
 */
function typedVariants(step: Raw, path: IssuePath, options: NormalizeOptions): Raw {
  const block: Raw = { type: 'parallel' };
  for (const key of ['title', 'description', 'stage', 'when', 'fail_fast', 'timeout']) {
    if (step[key] !== undefined) block[key] = step[key];
  }
  const steps: Raw = {};
  for (const variant of stepVariants(String(path[path.length - 1]), step)) {
    const { when: _when, ...copy } = variant.raw;
    setKey(steps, variant.name, copy);
    options.paths.move([...path, 'steps', variant.name], path);
  }
  block.steps = steps;
  return block;
}

/** `type: freestyle` with `arguments: {image, commands}` is the same step as without. */
function foldArguments(step: Raw, path: IssuePath, options: NormalizeOptions): Raw {
  const args = step.arguments;
  if (!isPlainMap(args)) return step;
  const { arguments: _folded, ...out } = step;
  for (const [key, value] of Object.entries(args)) {
    if (Object.hasOwn(out, key)) {
      const message = `Field "${key}" is written both on the step and in its "arguments"`;
      options.ctx.report([...path, 'arguments', key], message, { at: 'key' });
      continue;
    }
    setKey(out, key, value);
    options.paths.move([...path, key], [...path, 'arguments', key]);
  }
  return out;
}

function expandTyped(
  step: Raw,
  type: string,
  path: IssuePath,
  options: NormalizeOptions,
  depth: number,
): TypedExpansion | undefined {
  if (depth >= MAX_TEMPLATE_DEPTH) {
    const message = `Step type "${type}" expands into typed steps more than ${MAX_TEMPLATE_DEPTH} levels deep; does its template use itself?`;
    options.ctx.report([...path, 'type'], message, { code: ISSUE_CODES.invalidValue });
    return undefined;
  }
  const expansion = expandTypedStepOrReport(
    { stepName: String(path[path.length - 1]), path, type, arguments: step.arguments },
    options.stepTypes,
    options.ctx,
  );
  if (expansion === undefined) return undefined;
  const templatePath = [...path, TEMPLATE_SEGMENT];
  // Problems inside the template are shown at the typed step's "type".
  options.paths.move(templatePath, [...path, 'type']);
  const steps = normalizeSteps(expansion.steps, templatePath, options, depth + 1);
  return { stepType: expansion.stepType, steps: isPlainMap(steps) ? steps : {} };
}

function normalizeHooks(
  hooks: unknown,
  path: IssuePath,
  options: NormalizeOptions,
  depth: number,
): unknown {
  if (!isPlainMap(hooks)) return hooks;
  const out: Raw = { ...hooks };
  for (const name of HOOK_NAMES) {
    if (hooks[name] === undefined) continue;
    const hook = hookLongForm(hooks[name], [...path, name], options);
    out[name] =
      !isPlainMap(hook) || hook.steps === undefined
        ? hook
        : { ...hook, steps: normalizeSteps(hook.steps, [...path, name, 'steps'], options, depth) };
  }
  return out;
}
