/**
 * `when:` into the model: branch filters, named conditions (kept as source text with where it
 * starts in the file, so run-time errors can point at it) and parallel-mode step dependencies.
 * @module
 */
import { asList, asMap } from './build-model-values.js';
import { scalarText } from './schema/validators.js';
import type { ConditionExpression, Position, StepDependency, StepWhen } from './model.js';
import type { SourceView } from './path-map.js';
import type { IssuePath } from './pipeline-issue.js';
import type { Raw } from './build-model-values.js';

type Conditions = NonNullable<StepWhen['conditions']>;

export function buildWhen(raw: unknown, path: IssuePath, source: SourceView): StepWhen | undefined {
  const when = asMap(raw);
  if (when === undefined) return undefined;
  const out: StepWhen = {};
  const branch = asMap(when.branch);
  if (branch) out.branch = { only: asList(branch.only), ignore: asList(branch.ignore) };
  const conditions = buildConditions(when.condition, [...path, 'condition'], source);
  if (conditions !== undefined) out.conditions = conditions;
  const steps = buildDependencies(when.steps);
  if (steps !== undefined) out.steps = steps;
  return out;
}

/** `condition: {all: {...}, any: {...}}`, of a step or of a parallel step's success criteria. */
export function buildConditions(
  raw: unknown,
  path: IssuePath,
  source: SourceView,
): Conditions | undefined {
  const condition = asMap(raw);
  if (condition === undefined) return undefined;
  return (['all', 'any'] as const)
    .filter((mode) => condition[mode] !== undefined)
    .map((mode) => ({
      mode,
      expressions: Object.entries(asMap(condition[mode]) ?? {}).map(
        ([name, text]): ConditionExpression => {
          const exprPath = [...path, mode, name];
          const start = source.scalarStart(exprPath);
          const position: Position | undefined = start
            ? { line: start.line, column: start.column }
            : undefined;
          return { name, source: scalarText(text), position, path: source.toDocument(exprPath) };
        },
      ),
    }));
}

/** The list form means all of them; `on` defaults to success and may be one string. */
function buildDependencies(raw: unknown): StepWhen['steps'] {
  if (Array.isArray(raw)) return { mode: 'all', dependencies: raw.map(dependency) };
  const map = asMap(raw);
  if (map === undefined) return undefined;
  const mode = map.any !== undefined ? 'any' : 'all';
  const list = map[mode];
  return { mode, dependencies: Array.isArray(list) ? list.map(dependency) : [] };
}

function dependency(entry: unknown): StepDependency {
  const raw: Raw = asMap(entry) ?? {};
  // An approval step that was approved ends `success`.
  const on = (asList(raw.on) ?? ['success']).map((o) => (o === 'approved' ? 'success' : o));
  return { step: scalarText(raw.name), on: on as StepDependency['on'] };
}
