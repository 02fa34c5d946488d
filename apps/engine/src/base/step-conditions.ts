/**
 * Decides whether a step runs: `when.branch` against CF_BRANCH, then `when.condition.all/any`
 * with `${{…}}` resolved first and the expression evaluated against the build scope.
 * @module
 */
import {
  branchAllowed,
  evaluateExpression,
  interpolate,
  isTruthy,
  parseExpression,
} from '@sluice/pipeline';
import type { ConditionExpression, ExprValue, StepWhen } from '@sluice/pipeline';
import type { BuildScope } from './build-scope.js';

export type ConditionOutcome =
  { run: true } | { run: false; reason: string } | { run: false; error: string };

export function evaluateWhen(
  when: StepWhen | undefined,
  scope: BuildScope,
  file: string,
): ConditionOutcome {
  if (when === undefined) return { run: true };
  if (when.branch) {
    const branch = scope.lookup('CF_BRANCH') ?? '';
    if (!branchAllowed(when.branch, branch))
      return { run: false, reason: `branch "${branch}" does not match when.branch` };
  }
  for (const group of when.conditions ?? []) {
    const outcomes: boolean[] = [];
    for (const expression of group.expressions) {
      const value = evaluateCondition(expression, scope, file);
      if (typeof value === 'string') return { run: false, error: value };
      outcomes.push(value);
    }
    const passed = group.mode === 'all' ? outcomes.every(Boolean) : outcomes.some(Boolean);
    if (!passed) return { run: false, reason: `when.condition.${group.mode} is false` };
  }
  return { run: true };
}

/** The condition's truth, or an error message placed at file:line:column. */
function evaluateCondition(
  expression: ConditionExpression,
  scope: BuildScope,
  file: string,
): boolean | string {
  const source = interpolate(expression.source, (name) => scope.lookup(name));
  const where = (line: number, column: number) => {
    const base = expression.position;
    if (base === undefined) return `${file}`;
    return line === 1
      ? `${file}:${base.line}:${base.column + column - 1}`
      : `${file}:${base.line + line - 1}:${column}`;
  };
  const parsed = parseExpression(source);
  if (!parsed.ok) {
    const first = parsed.issues[0];
    return `${where(first?.line ?? 1, first?.column ?? 1)}: condition "${expression.name}": ${first?.message ?? 'invalid expression'}`;
  }
  const result = evaluateExpression(parsed.ast, source, {
    lookup: (path): ExprValue | undefined => scope.lookupPath(path),
  });
  if (!result.ok)
    return `${where(result.issue.line, result.issue.column)}: condition "${expression.name}": ${result.issue.message}`;
  return isTruthy(result.value);
}
