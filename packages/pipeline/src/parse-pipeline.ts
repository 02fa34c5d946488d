/**
 * Entry point of the package: codefresh.yml text in, a validated `Pipeline` or every problem out.
 * @module
 */
import { buildPipeline } from './build-model.js';
import { compareIssues, ISSUE_CODES } from './pipeline-issue.js';
import { checkSemantics } from './semantic-checks.js';
import { pipelineSchema } from './schema/pipeline-schema.js';
import { isPlainMap, typeName } from './schema/validators.js';
import { parseYamlSource } from './yaml-source.js';
import type { Pipeline } from './model.js';
import type { IssuePath, PipelineIssue } from './pipeline-issue.js';
import type { SemanticContext } from './semantic-checks.js';
import type { ReportOptions } from './schema/validators.js';

export interface ParsePipelineOptions {
  /** Shown in issues; defaults to `codefresh.yml`. */
  file?: string;
}

export type ParsePipelineResult =
  | { ok: true; pipeline: Pipeline; issues: PipelineIssue[] }
  | { ok: false; issues: PipelineIssue[] };

export function parsePipeline(
  text: string,
  options: ParsePipelineOptions = {},
): ParsePipelineResult {
  const source = parseYamlSource(text, options.file ?? 'codefresh.yml');
  const issues = [...source.issues];
  const done = () => issues.sort(compareIssues);
  if (issues.some((i) => i.severity === 'error')) return { ok: false, issues: done() };

  const report = (path: IssuePath, message: string, opts: ReportOptions = {}) => {
    const { line, column } = source.locate(path, opts.at);
    issues.push({
      severity: opts.severity ?? 'error',
      code: opts.code ?? ISSUE_CODES.invalidValue,
      message,
      path,
      file: source.file,
      line,
      column,
    });
  };
  const ctx: SemanticContext = {
    report,
    reportInScalar(path, offset, message, code) {
      const at = source.locateInScalar(path, offset) ?? source.locate(path);
      issues.push({ severity: 'error', code, message, path, file: source.file, ...at });
    },
  };

  const root = source.value;
  if (!isPlainMap(root)) {
    report([], rootMessage(root));
    return { ok: false, issues: done() };
  }
  pipelineSchema.check(root, [], ctx);
  checkSemantics(root, ctx);
  if (issues.some((i) => i.severity === 'error')) return { ok: false, issues: done() };
  return { ok: true, pipeline: buildPipeline(root, source), issues: done() };
}

function rootMessage(root: unknown): string {
  if (root === null || root === undefined) {
    return 'The pipeline file is empty; it needs "version" and "steps"';
  }
  return `A pipeline must be a map with "version" and "steps", got ${typeName(root)}`;
}
