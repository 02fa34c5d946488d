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
import { didYouMean } from '@sluice/errors';
import { isPlainMap, scalarText } from './schema/validators.js';
import { VOLUME_PATH } from './system-variables.js';
import { checkHookMixing } from './hook-checks.js';
import { collectScopes } from './step-scopes.js';
import {
  checkCycles,
  checkDependencies,
  checkServiceReferences,
  checkSuccessCriteria,
  checkUniqueNames,
  serviceBlockNames,
} from './step-graph-checks.js';
import type { IssuePath } from './pipeline-issue.js';
import type { SchemaContext } from './schema/validators.js';
import type { WrittenStep } from './step-scopes.js';

export interface SemanticContext extends SchemaContext {
  /** Report at character `offset` (0-based) of the string value found at `path`. */
  reportInScalar(path: IssuePath, offset: number, message: string, code: string): void;
  /** `file:line:column` of the key at `path`, for a message that names a second place. */
  where(path: IssuePath): string;
}

export function checkSemantics(root: Record<string, unknown>, ctx: SemanticContext): void {
  const scopes = collectScopes(root);
  const [main] = scopes;
  const mainNames = main?.names.map((n) => n.name) ?? [];
  const stages = Array.isArray(root.stages) ? root.stages.map(String) : undefined;
  const blocks = serviceBlockNames(root.services, ctx);
  const parallelMode = root.mode === 'parallel';
  for (const scope of scopes) {
    checkUniqueNames(scope, ctx);
    // A hook's steps may look at the pipeline's steps as well as at each other.
    const known = scope === main ? mainNames : [...scope.names.map((n) => n.name), ...mainNames];
    for (const step of scope.steps) {
      const { raw, path } = step;
      checkStage(raw, path, stages, ctx);
      checkWhen(raw.when, [...path, 'when'], known, ctx);
      checkDependencies(step, known, parallelMode, ctx);
      checkFreestyle(raw, path, ctx);
      checkServiceReferences(step, blocks, ctx);
      checkHookMixing(raw, path, ctx);
      if (raw.type === 'parallel') checkParallel(step, known, ctx);
    }
  }
  if (parallelMode && main !== undefined) checkCycles(main.steps, ctx);
}

function checkParallel(step: WrittenStep, known: string[], ctx: SemanticContext): void {
  const children = collectScopes({ steps: step.raw.steps })[0]?.names.map((n) => n.name) ?? [];
  checkSuccessCriteria(step, children, ctx);
  const criteria = step.raw.success_criteria;
  if (isPlainMap(criteria)) {
    checkConditions(
      criteria.condition,
      [...step.path, 'success_criteria', 'condition'],
      known,
      ctx,
    );
  }
}

function checkStage(
  step: Record<string, unknown>,
  path: IssuePath,
  stages: string[] | undefined,
  ctx: SchemaContext,
): void {
  if (typeof step.stage !== 'string' && typeof step.stage !== 'number') return;
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
        if (typeof pattern !== 'string') return; // reported by the schema
        const compiled = compileBranchPattern(pattern);
        if (!compiled.ok) ctx.report([...path, 'branch', key, index], compiled.message);
      });
    }
  }
  checkConditions(when.condition, [...path, 'condition'], stepNames, ctx);
}

function checkConditions(
  condition: unknown,
  path: IssuePath,
  stepNames: string[],
  ctx: SemanticContext,
): void {
  if (!isPlainMap(condition)) return;
  for (const mode of ['all', 'any'] as const) {
    const expressions = condition[mode];
    if (!isPlainMap(expressions)) continue;
    for (const [name, source] of Object.entries(expressions)) {
      if (typeof source !== 'string') continue; // numbers are valid; others reported already
      checkExpression(source, [...path, mode, name], stepNames, ctx);
    }
  }
}

function checkExpression(
  source: string,
  path: IssuePath,
  stepNames: string[],
  ctx: SemanticContext,
): void {
  // Trailing whitespace (the newline a `|` block keeps) would move "unexpected end" off the text.
  const masked = maskPlaceholders(source).trimEnd();
  const parsed = parseExpression(masked);
  if (!parsed.ok) {
    for (const issue of parsed.issues) {
      ctx.reportInScalar(path, issue.offset, issue.message, ISSUE_CODES.expression);
    }
    return;
  }
  for (const ref of stepReferences(masked)) {
    // `steps.${{NAME}}.result` or `steps.deploy_${{ENV}}` is only known at run time.
    const written = source.slice(ref.nameOffset, ref.nameOffset + ref.name.length);
    if (stepNames.includes(ref.name) || written.includes('${{')) continue;
    ctx.reportInScalar(
      path,
      ref.offset,
      `Condition refers to unknown step "${ref.name}"${didYouMean(ref.name, stepNames)}`,
      ISSUE_CODES.unknownStep,
    );
  }
}

interface StepReference {
  name: string;
  /** Of `steps.NAME` and of `NAME`, 0-based. */
  offset: number;
  nameOffset: number;
}

/** `steps.NAME` outside string literals. */
function stepReferences(source: string): StepReference[] {
  const blanked = source.replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, (s) =>
    ' '.repeat(s.length),
  );
  return [...blanked.matchAll(/(?<![\w.])steps\.([A-Za-z0-9_-]+)/g)].map((match) => ({
    name: match[1] ?? '',
    offset: match.index,
    nameOffset: match.index + 'steps.'.length,
  }));
}

function checkFreestyle(step: Record<string, unknown>, path: IssuePath, ctx: SchemaContext): void {
  if ((step.type ?? 'freestyle') !== 'freestyle') return;
  if (step.cmd !== undefined && step.commands !== undefined) {
    ctx.report([...path, 'cmd'], 'A step takes "commands" or "cmd", not both', { at: 'key' });
  }
  if (step.cmd !== undefined && step.shell !== undefined) {
    const message = '"shell" runs "commands"; a step with "cmd" cannot set it';
    ctx.report([...path, 'shell'], message, { at: 'key' });
  }
  if (!Array.isArray(step.volumes)) return;
  step.volumes.forEach((volume, index) => {
    if (typeof volume !== 'string' && typeof volume !== 'number') return; // reported already
    const message = volumeProblem(String(volume));
    if (message !== undefined) ctx.report([...path, 'volumes', index], message);
  });
}

/** `SOURCE:/target[:mode]` with SOURCE inside the shared volume; `..` may not climb out of it. */
function volumeProblem(text: string): string | undefined {
  const [source, target] = text.split(':');
  if (!source || !target || !target.startsWith('/')) {
    return `Volume "${text}" must be written SOURCE:/absolute/target`;
  }
  const normalized = normalizePath(source.replace(/^\$\{\{\s*CF_VOLUME_PATH\s*\}\}/, VOLUME_PATH));
  if (normalized !== VOLUME_PATH && !normalized.startsWith(`${VOLUME_PATH}/`)) {
    return `Volume source "${source}" must be under ${VOLUME_PATH}`;
  }
  return undefined;
}

/** Resolves `.` and `..` in an absolute path; a relative path is returned unchanged. */
function normalizePath(path: string): string {
  if (!path.startsWith('/')) return path;
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}
