/**
 * A problem found in a pipeline file, placed at file:line:column with the field path, so a
 * person can go straight to it. Validation returns every issue at once.
 * @module
 */

export type IssueSeverity = 'error' | 'warning';

export type IssuePath = readonly (string | number)[];

export interface PipelineIssue {
  severity: IssueSeverity;
  /** Stable code from docs/errors.md, e.g. SLUICE_PIPELINE_UNKNOWN_FIELD. */
  code: string;
  message: string;
  /** Field path inside the document, e.g. ['steps', 'build', 'image']. */
  path: IssuePath;
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export const ISSUE_CODES = {
  yamlSyntax: 'SLUICE_PIPELINE_YAML_SYNTAX',
  unknownField: 'SLUICE_PIPELINE_UNKNOWN_FIELD',
  missingField: 'SLUICE_PIPELINE_MISSING_FIELD',
  invalidValue: 'SLUICE_PIPELINE_INVALID_VALUE',
  unsupported: 'SLUICE_PIPELINE_UNSUPPORTED',
  ignored: 'SLUICE_PIPELINE_IGNORED',
  unknownStepType: 'SLUICE_PIPELINE_UNKNOWN_STEP_TYPE',
  unknownStage: 'SLUICE_PIPELINE_UNKNOWN_STAGE',
  expression: 'SLUICE_PIPELINE_EXPRESSION',
  unknownStep: 'SLUICE_PIPELINE_UNKNOWN_STEP',
  deprecated: 'SLUICE_PIPELINE_DEPRECATED',
} as const;

/** `file:line:column: error: message (at steps.build.image)`, the compiler-style line. */
export function formatIssue(issue: PipelineIssue): string {
  const where = issue.path.length > 0 ? ` (at ${formatPath(issue.path)})` : '';
  return `${issue.file}:${issue.line}:${issue.column}: ${issue.severity}: ${issue.message}${where}`;
}

export function formatPath(path: IssuePath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

export function compareIssues(a: PipelineIssue, b: PipelineIssue): number {
  return a.line - b.line || a.column - b.column || a.message.localeCompare(b.message);
}
