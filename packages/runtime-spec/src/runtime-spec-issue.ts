/**
 * A problem found in a runtime environment spec: the field path, a message for people and a
 * stable code from docs/errors.md. Validation returns every issue at once; the control plane
 * turns a list of them into one `InputError` with `invalidRuntimeSpecError`.
 * @module
 */
import { InputError } from '@sluice/errors';

export const RUNTIME_SPEC_ISSUE_CODES = {
  yamlSyntax: 'SLUICE_RUNTIME_SPEC_YAML_SYNTAX',
  unknownField: 'SLUICE_RUNTIME_SPEC_UNKNOWN_FIELD',
  missingField: 'SLUICE_RUNTIME_SPEC_MISSING_FIELD',
  invalidValue: 'SLUICE_RUNTIME_SPEC_INVALID_VALUE',
  notFound: 'SLUICE_RUNTIME_SPEC_NOT_FOUND',
  parentNotFound: 'SLUICE_RUNTIME_SPEC_PARENT_NOT_FOUND',
  extendsCycle: 'SLUICE_RUNTIME_SPEC_EXTENDS_CYCLE',
  incomplete: 'SLUICE_RUNTIME_SPEC_INCOMPLETE',
} as const;

export type RuntimeSpecIssueCode =
  (typeof RUNTIME_SPEC_ISSUE_CODES)[keyof typeof RUNTIME_SPEC_ISSUE_CODES];

export type RuntimeSpecPath = (string | number)[];

export interface RuntimeSpecIssue {
  /** Field path inside the spec, e.g. ['dockerDaemonScheduler', 'pvcs', 'dind', 'volumeSize']. */
  path: RuntimeSpecPath;
  message: string;
  code: RuntimeSpecIssueCode;
}

/** An issue of a YAML file, placed at 1-based line and column. */
export interface RuntimeSpecYamlIssue extends RuntimeSpecIssue {
  file: string;
  line: number;
  column: number;
}

/** `runtimeScheduler.tolerations[0].operator`; the empty path is the spec itself. */
export function formatRuntimeSpecPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

/** `file:line:column: message (at path)` for YAML issues, `message (at path)` otherwise. */
export function formatRuntimeSpecIssue(issue: RuntimeSpecIssue | RuntimeSpecYamlIssue): string {
  const where = issue.path.length > 0 ? ` (at ${formatRuntimeSpecPath(issue.path)})` : '';
  const file = 'file' in issue ? `${issue.file}:${issue.line}:${issue.column}: ` : '';
  return `${file}${issue.message}${where}`;
}

/**
 * One `InputError` (HTTP 400, CLI exit 2) carrying every issue in `details.issues`, for the
 * boundary that rejects a spec (`sluice patch re -f`, the runtime API).
 */
export function invalidRuntimeSpecError(
  name: string,
  issues: readonly (RuntimeSpecIssue | RuntimeSpecYamlIssue)[],
): InputError {
  const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return new InputError(
    'SLUICE_RUNTIME_SPEC_INVALID',
    `Runtime environment "${name}" has ${count}: ${issues.map(formatRuntimeSpecIssue).join('; ')}`,
    { details: { issues: issues.map((i) => ({ ...i })) } },
  );
}
