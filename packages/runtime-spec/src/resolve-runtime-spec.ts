/**
 * The spec a build runs with: a runtime environment merged over its `extends` parents, parents
 * first (a parent's own parents before it, later parents over earlier ones), maps merged deeply
 * and lists replaced. A parent's `metadata` and `description` are its own and not inherited.
 * Cycles and missing parents are reported naming the chain; the result is validated again
 * (merging can combine fields that conflict) and checked to be complete enough to run.
 * @module
 */
import { checkResolved } from './check-resolved.js';
import { deepMerge } from './merge-patch.js';
import { RUNTIME_SPEC_ISSUE_CODES } from './runtime-spec-issue.js';
import { validateRuntimeSpec } from './validate-runtime-spec.js';
import type { RuntimeSpecIssue } from './runtime-spec-issue.js';
import type { RuntimeSpec } from './schema/runtime-spec-schema.js';

export type RuntimeSpecLookup = (name: string) => RuntimeSpec | undefined;

export type ResolveRuntimeSpecResult =
  | {
      ok: true;
      /** The merged spec, without `extends`. */
      spec: RuntimeSpec;
      /** Every spec merged, in merge order: parents first, `name` last. */
      chain: string[];
    }
  | { ok: false; issues: RuntimeSpecIssue[] };

type Inherited = Omit<RuntimeSpec, 'metadata' | 'description' | 'extends'>;

interface Walk {
  lookup: RuntimeSpecLookup;
  issues: RuntimeSpecIssue[];
  chain: string[];
  done: Map<string, Inherited>;
}

export function resolveRuntimeSpec(
  name: string,
  lookup: RuntimeSpecLookup,
): ResolveRuntimeSpecResult {
  const spec = lookup(name);
  if (spec === undefined) {
    const message = `Runtime environment "${name}" does not exist`;
    return { ok: false, issues: [{ path: [], code: RUNTIME_SPEC_ISSUE_CODES.notFound, message }] };
  }
  const walk: Walk = { lookup, issues: [], chain: [], done: new Map() };
  const parents = mergeParents(spec, name, [], walk);
  if (walk.issues.length > 0) return { ok: false, issues: walk.issues };
  const { extends: _extends, ...own } = spec;
  const validated = validateRuntimeSpec(
    deepMerge<RuntimeSpec>({ ...parents, metadata: own.metadata }, own),
  );
  if (!validated.ok) return validated;
  const incomplete = checkResolved(validated.spec);
  if (incomplete.length > 0) return { ok: false, issues: incomplete };
  return { ok: true, spec: validated.spec, chain: [...walk.chain, name] };
}

/** The parents of `spec` merged in order, each over its own parents. */
function mergeParents(spec: RuntimeSpec, name: string, trail: string[], walk: Walk): Inherited {
  let merged: Inherited = {};
  (spec.extends ?? []).forEach((parentName, index) => {
    const parent = inherited(parentName, [...trail, name], index, walk);
    if (parent !== undefined) merged = deepMerge(merged, parent);
  });
  return merged;
}

function inherited(
  name: string,
  trail: string[],
  index: number,
  walk: Walk,
): Inherited | undefined {
  const path = ['extends', index];
  const child = trail[trail.length - 1] ?? '';
  if (trail.includes(name)) {
    const cycle = [...trail.slice(trail.indexOf(name)), name].join(' -> ');
    const message =
      child === name
        ? `Runtime environment "${name}" extends itself: ${cycle}`
        : `Runtime environment "${child}" extends "${name}", which extends it back: ${cycle}`;
    walk.issues.push({ path, code: RUNTIME_SPEC_ISSUE_CODES.extendsCycle, message });
    return undefined;
  }
  const known = walk.done.get(name);
  if (known !== undefined) return known;
  const spec = walk.lookup(name);
  if (spec === undefined) {
    const chain = [...trail, name].join(' -> ');
    const message = `Parent runtime environment "${name}" of "${child}" does not exist: ${chain}`;
    walk.issues.push({ path, code: RUNTIME_SPEC_ISSUE_CODES.parentNotFound, message });
    return undefined;
  }
  const { metadata: _metadata, description: _description, extends: _extends, ...own } = spec;
  const result = deepMerge<Inherited>(mergeParents(spec, name, trail, walk), own);
  walk.done.set(name, result);
  if (!walk.chain.includes(name)) walk.chain.push(name);
  return result;
}
