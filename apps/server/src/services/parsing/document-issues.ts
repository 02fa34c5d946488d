/**
 * A YAML document the API refuses (a pipeline, a step type), as one InputError: every issue with
 * its line and column in `details.issues`, the count and the first error in the message.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { PipelineIssue } from '@sluice/pipeline';
import { LIMITS } from '@sluice/protocol';

export interface InvalidDocument {
  code: string;
  /** The subject of the message: `The pipeline YAML`. */
  what: string;
  issues: readonly PipelineIssue[];
  details?: Record<string, unknown>;
}

export function invalidDocument({ code, what, issues, details = {} }: InvalidDocument): InputError {
  const listed = issues.map(({ severity, code, message, path, line, column }) => ({
    severity,
    code,
    message,
    path: [...path],
    line,
    column,
  }));
  const errors = listed.filter((i) => i.severity === 'error');
  const first = errors[0];
  // The first problems and how many there were: a broken megabyte document does not make a
  // megabyte answer.
  const shown = listed.slice(0, LIMITS.documentIssues);
  return new InputError(
    code,
    `${what} has ${errors.length} problem(s); first at ${first?.line}:${first?.column}: ${first?.message}`,
    {
      details: {
        ...details,
        issues: shown,
        issueCount: listed.length,
        ...(shown.length < listed.length ? { truncated: true } : {}),
      },
      hint: 'Fix each problem at the line and column shown',
    },
  );
}
