/**
 * Every step written in a pipeline, grouped by the scope its name lives in: the pipeline's own
 * steps (parallel children included) form one scope, and each hook's `steps` a scope of its
 * own, since a hook is a small pipeline run apart. Each scope also lists the names the model
 * will have: the copies `matrix`/`scale` make and the steps of typed-step templates.
 * @module
 */
import { hasVariants, stepVariants } from './expand-variants.js';
import { HOOK_NAMES } from './schema/hooks-schema.js';
import { typedExpansion } from './schema/step-type-names.js';
import { isPlainMap } from './schema/validators.js';
import type { IssuePath } from './pipeline-issue.js';

type Raw = Record<string, unknown>;

export interface WrittenStep {
  name: string;
  raw: Raw;
  path: IssuePath;
}

export interface StepScope {
  steps: WrittenStep[];
  /** Every name the model will hold, with the written step that makes it, in file order. */
  names: { name: string; path: IssuePath; generated: boolean }[];
}

/** The pipeline's scope first, then one per hook with steps. */
export function collectScopes(root: Raw): StepScope[] {
  const main: StepScope = { steps: [], names: [] };
  const scopes = [main];
  addHookScopes(root.hooks, ['hooks'], scopes);
  visit(root.steps, ['steps'], main, scopes);
  return scopes;
}

function visit(steps: unknown, path: IssuePath, scope: StepScope, scopes: StepScope[]): void {
  if (!isPlainMap(steps)) return;
  for (const [name, raw] of Object.entries(steps)) {
    if (!isPlainMap(raw)) continue;
    const at = [...path, name];
    scope.steps.push({ name, raw, path: at });
    scope.names.push({ name, path: at, generated: false });
    for (const made of generatedNames(name, raw, false)) {
      scope.names.push({ name: made, path: at, generated: true });
    }
    if (raw.type === 'parallel') visit(raw.steps, [...at, 'steps'], scope, scopes);
    addHookScopes(raw.hooks, [...at, 'hooks'], scopes);
  }
}

function addHookScopes(hooks: unknown, path: IssuePath, scopes: StepScope[]): void {
  if (!isPlainMap(hooks)) return;
  for (const name of HOOK_NAMES) {
    const hook = hooks[name];
    if (!isPlainMap(hook) || !isPlainMap(hook.steps)) continue;
    const scope: StepScope = { steps: [], names: [] };
    scopes.push(scope);
    visit(hook.steps, [...path, name, 'steps'], scope, scopes);
  }
}

/** Names the model builder makes from one written step, besides the step's own. */
function generatedNames(name: string, raw: Raw, inTemplate: boolean): string[] {
  const out: string[] = [];
  if (hasVariants(raw) && raw.type !== 'parallel') {
    out.push(...stepVariants(name, raw).map((variant) => variant.name));
  }
  const expansion = typedExpansion(raw);
  for (const [inner, step] of Object.entries(expansion?.steps ?? {})) {
    const made = `${name}_${inner}`;
    out.push(made, ...(isPlainMap(step) ? generatedNames(made, step, true) : []));
  }
  if (inTemplate && raw.type === 'parallel' && isPlainMap(raw.steps)) {
    for (const [child, step] of Object.entries(raw.steps)) {
      out.push(child, ...(isPlainMap(step) ? generatedNames(child, step, true) : []));
    }
  }
  return out;
}
