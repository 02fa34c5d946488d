/**
 * Checks that need more than one field at a time: stages that exist, conditions that parse and
 * name real steps, branch patterns that compile, mutually exclusive fields. Runs after the
 * schema pass, on values that passed it.
 * @module
 */
import { compileBranchPattern } from './branch-filter.js';
import { maskPlaceholders } from './interpolate.js';
import { parseExpression } from './expression/index.js';
import { ISSUE_CODES } from './pipeline-issue.js';
import { didYouMean } from './suggest.js';
import { isPlainMap, scalarText } from './schema/validators.js';
import type { IssuePath } from './pipeline-issue.js';
import type { SchemaContext } from './schema/validators.js';

export interface SemanticContext extends SchemaContext {
  /** Report at a line/column inside the string scalar found at `path` (1-based, relative). */
  reportInScalar(
    path: IssuePath,
    line: number,
    column: number,
    message: string,
    code: string,
  ): void;
}

export function checkSemantics(root: Record<string, unknown>, ctx: SemanticContext): void {
  if (root.mode === 'parallel') {
    ctx.report(['mode'], 'Pipeline mode "parallel" is not supported by Sluice yet', {
      code: ISSUE_CODES.unsupported,
    });
  }
  const steps = isPlainMap(root.steps) ? root.steps : {};
  const stepNames = collectStepNames(steps);
  const stages = Array.isArray(root.stages) ? root.stages.map(String) : undefined;
  for (const [name, step] of Object.entries(steps)) {
    if (!isPlainMap(step)) continue;
    const path = ['steps', name];
    checkStage(step, path, stages, ctx);
    checkWhen(step.when, [...path, 'when'], stepNames, ctx);
    checkFreestyle(step, path, ctx);
  }
}

function collectStepNames(steps: Record<string, unknown>): string[] {
  const names: string[] = [];
  for (const [name, step] of Object.entries(steps)) {
    names.push(name);
    if (isPlainMap(step) && step.type === 'parallel' && isPlainMap(step.steps)) {
      names.push(...collectStepNames(step.steps));
    }
  }
  return names;
}

function checkStage(
  step: Record<string, unknown>,
  path: IssuePath,
  stages: string[] | undefined,
  ctx: SchemaContext,
): void {
  if (step.stage === undefined) return;
  const stage = scalarText(step.stage);
  if (stages === undefined) {
    ctx.report(
      [...path, 'stage'],
      `Step uses stage "${stage}" but the pipeline declares no "stages"`,
      {
        code: ISSUE_CODES.unknownStage,
      },
    );
  } else if (!stages.includes(stage)) {
    ctx.report(
      [...path, 'stage'],
      `Stage "${stage}" is not declared in "stages"${didYouMean(stage, stages)}`,
      {
        code: ISSUE_CODES.unknownStage,
      },
    );
  }
}

function checkWhen(
  when: unknown,
  path: IssuePath,
  stepNames: string[],
  ctx: SemanticContext,
): void {
  if (!isPlainMap(when)) return;
  if (isPlainMap(when.branch)) {
    for (const key of ['only', 'ignore'] as const) {
      const patterns = when.branch[key];
      if (!Array.isArray(patterns)) continue;
      patterns.forEach((pattern, index) => {
        const compiled = compileBranchPattern(String(pattern));
        if (!compiled.ok) ctx.report([...path, 'branch', key, index], compiled.message);
      });
    }
  }
  if (isPlainMap(when.condition)) {
    for (const mode of ['all', 'any'] as const) {
      const expressions = when.condition[mode];
      if (!isPlainMap(expressions)) continue;
      for (const [name, source] of Object.entries(expressions)) {
        checkExpression(String(source), [...path, 'condition', mode, name], stepNames, ctx);
      }
    }
  }
}

function checkExpression(
  source: string,
  path: IssuePath,
  stepNames: string[],
  ctx: SemanticContext,
): void {
  const masked = maskPlaceholders(source);
  const parsed = parseExpression(masked);
  if (!parsed.ok) {
    for (const issue of parsed.issues) {
      ctx.reportInScalar(path, issue.line, issue.column, issue.message, ISSUE_CODES.expression);
    }
    return;
  }
  for (const ref of stepReferences(masked)) {
    if (stepNames.includes(ref.name)) continue;
    ctx.reportInScalar(
      path,
      ref.line,
      ref.column,
      `Condition refers to unknown step "${ref.name}"${didYouMean(ref.name, stepNames)}`,
      ISSUE_CODES.unknownStep,
    );
  }
}

/** `steps.NAME` outside string literals, with 1-based positions. */
function stepReferences(source: string): { name: string; line: number; column: number }[] {
  const blanked = source.replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, (s) =>
    ' '.repeat(s.length),
  );
  const refs: { name: string; line: number; column: number }[] = [];
  for (const match of blanked.matchAll(/(?<![\w.])steps\.([A-Za-z0-9_-]+)/g)) {
    const before = blanked.slice(0, match.index);
    const line = before.split('\n').length;
    const column = match.index - before.lastIndexOf('\n');
    refs.push({ name: match[1] ?? '', line, column });
  }
  return refs;
}

function checkFreestyle(step: Record<string, unknown>, path: IssuePath, ctx: SchemaContext): void {
  if ((step.type ?? 'freestyle') !== 'freestyle') return;
  if (step.cmd !== undefined && step.commands !== undefined) {
    ctx.report([...path, 'cmd'], 'A step takes "commands" or "cmd", not both', { at: 'key' });
  }
  if (Array.isArray(step.volumes)) {
    step.volumes.forEach((volume, index) => {
      const text = String(volume);
      const [source, target] = text.split(':');
      if (!source || !target || !target.startsWith('/')) {
        ctx.report(
          [...path, 'volumes', index],
          `Volume "${text}" must be written SOURCE:/absolute/target`,
        );
      } else if (
        !source.startsWith('/codefresh/volume') &&
        !source.startsWith('${{CF_VOLUME_PATH}}')
      ) {
        ctx.report(
          [...path, 'volumes', index],
          `Volume source "${source}" must be under /codefresh/volume`,
        );
      }
    });
  }
}
