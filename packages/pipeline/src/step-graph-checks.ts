/**
 * Checks over the names of steps: names at most `MAX_STEP_NAME` characters and unique within
 * their scope (the copies `matrix` and `scale` make and typed-step template steps included), `when.steps` naming real steps and, in
 * `mode: parallel`, not depending on each other in a cycle; `success_criteria.steps.only`
 * naming steps of its block; and step `services` naming pipeline-level service blocks.
 * @module
 */
import { didYouMean } from '@sluice/errors';
import { IMPLICIT_CLONE } from './implicit-clone.js';
import { ISSUE_CODES } from './pipeline-issue.js';
import { isPlainMap, scalarText } from './schema/validators.js';
import type { IssuePath } from './pipeline-issue.js';
import type { StepScope, WrittenStep } from './step-scopes.js';
import type { SchemaContext } from './schema/validators.js';

type Raw = Record<string, unknown>;

/** The longest step name a pipeline may use, in characters (documented in docs/limits.md). */
export const MAX_STEP_NAME = 128;

export function checkUniqueNames(scope: StepScope, ctx: SchemaContext): void {
  const seen = new Map<string, StepScope['names'][number]>();
  for (const entry of scope.names) {
    if (entry.name.length > MAX_STEP_NAME && !entry.generated) {
      // The name itself is not repeated: it may be 100k characters long.
      ctx.report(
        entry.path,
        `Step name is ${entry.name.length} characters long; at most ${MAX_STEP_NAME} are allowed`,
        { at: 'key', code: ISSUE_CODES.invalidValue },
      );
      continue;
    }
    const first = seen.get(entry.name);
    if (first === undefined) {
      seen.set(entry.name, entry);
      continue;
    }
    const maker = (e: typeof entry) => `"${String(e.path[e.path.length - 1])}"`;
    const firstIs = first.generated ? `a step that step ${maker(first)} makes` : 'another step';
    const message = entry.generated
      ? `Step ${maker(entry)} makes a step named "${entry.name}", the name of ${firstIs}`
      : `Step name "${entry.name}" is also the name of ${firstIs}; step names must be unique, parallel steps included`;
    ctx.report(entry.path, message, { at: 'key' });
  }
}

interface Dependency {
  name: string;
  /** Of the entry's `name` value. */
  path: IssuePath;
}

/** `when.steps` entries of a step, list or `all:`/`any:` form. */
function dependenciesOf(step: WrittenStep): Dependency[] {
  const when = step.raw.when;
  if (!isPlainMap(when)) return [];
  const base = [...step.path, 'when', 'steps'];
  const lists: [unknown, IssuePath][] = Array.isArray(when.steps)
    ? [[when.steps, base]]
    : isPlainMap(when.steps)
      ? (['all', 'any'] as const).map((mode): [unknown, IssuePath] => [
          (when.steps as Raw)[mode],
          [...base, mode],
        ])
      : [];
  const out: Dependency[] = [];
  for (const [list, at] of lists) {
    if (!Array.isArray(list)) continue;
    list.forEach((entry, index) => {
      if (!isPlainMap(entry) || entry.name === undefined || entry.name === null) return;
      out.push({ name: scalarText(entry.name), path: [...at, index, 'name'] });
    });
  }
  return out;
}

export function checkDependencies(
  step: WrittenStep,
  known: string[],
  parallelMode: boolean,
  ctx: SchemaContext,
): void {
  const dependencies = dependenciesOf(step);
  for (const dependency of dependencies) {
    if (known.includes(dependency.name)) continue;
    if (dependency.name === IMPLICIT_CLONE) {
      const message = `"when.steps" names "${IMPLICIT_CLONE}", the clone step Codefresh adds to a pipeline linked to a repository; Sluice adds none, so this dependency is met from the start`;
      ctx.report(dependency.path, message, { code: ISSUE_CODES.ignored, severity: 'warning' });
      continue;
    }
    ctx.report(
      dependency.path,
      `"when.steps" names unknown step "${dependency.name}"${didYouMean(dependency.name, known)}`,
      { code: ISSUE_CODES.unknownStep },
    );
  }
  if (!parallelMode && dependencies.length > 0) {
    const message =
      '"when.steps" only orders steps in a pipeline with mode: parallel; here steps run in file order';
    ctx.report([...step.path, 'when', 'steps'], message, { severity: 'warning', at: 'key' });
  }
}

/** Depth-first search over `when.steps`; each cycle is reported once, where it closes. */
export function checkCycles(steps: WrittenStep[], ctx: SchemaContext): void {
  const byName = new Map(steps.map((step) => [step.name, step]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const walk = (step: WrittenStep) => {
    state.set(step.name, 'open');
    stack.push(step.name);
    for (const dependency of dependenciesOf(step)) {
      const next = byName.get(dependency.name);
      if (next === undefined) continue;
      const seen = state.get(next.name);
      if (seen === 'open') {
        const cycle = [...stack.slice(stack.indexOf(next.name)), next.name];
        const message = `Steps wait for each other in a cycle: ${cycle.join(' → ')}`;
        ctx.report(dependency.path, message);
      } else if (seen === undefined) {
        walk(next);
      }
    }
    stack.pop();
    state.set(step.name, 'done');
  };
  for (const step of steps) if (!state.has(step.name)) walk(step);
}

export function checkSuccessCriteria(
  step: WrittenStep,
  children: string[],
  ctx: SchemaContext,
): void {
  const criteria = step.raw.success_criteria;
  if (!isPlainMap(criteria) || !isPlainMap(criteria.steps)) return;
  const only = criteria.steps.only;
  if (!Array.isArray(only)) return;
  only.forEach((entry, index) => {
    const name = scalarText(entry);
    if (children.includes(name)) return;
    ctx.report(
      [...step.path, 'success_criteria', 'steps', 'only', index],
      `"success_criteria" names "${name}", which is not a step of this parallel step${didYouMean(name, children)}`,
      { code: ISSUE_CODES.unknownStep },
    );
  });
}

/** `services: [db]` on a step names blocks declared under the pipeline's `services`. */
export function checkServiceReferences(
  step: WrittenStep,
  blocks: string[],
  ctx: SchemaContext,
): void {
  const services = step.raw.services;
  if (!Array.isArray(services)) return;
  services.forEach((entry, index) => {
    if (typeof entry !== 'string' && typeof entry !== 'number') return; // reported by the schema
    const name = scalarText(entry);
    if (blocks.includes(name)) return;
    const where =
      blocks.length === 0
        ? '; the pipeline declares no named "services" blocks'
        : didYouMean(name, blocks);
    ctx.report([...step.path, 'services', index], `Unknown services block "${name}"${where}`);
  });
}

/** Names of pipeline-level service blocks; a repeated name is reported. */
export function serviceBlockNames(services: unknown, ctx: SchemaContext): string[] {
  const blocks = Array.isArray(services) ? services : isPlainMap(services) ? [services] : [];
  const names: string[] = [];
  blocks.forEach((block, index) => {
    if (!isPlainMap(block) || block.name === undefined || block.name === null) return;
    const name = scalarText(block.name);
    if (names.includes(name)) {
      const path = Array.isArray(services) ? ['services', index, 'name'] : ['services', 'name'];
      ctx.report(path, `Services block name "${name}" is used twice`);
    }
    names.push(name);
  });
  return names;
}
