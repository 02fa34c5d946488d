/**
 * `sluice validate [FILE...]`: every problem in each pipeline with file:line:column, typed steps
 * checked against the same step-type directories as `sluice run`. Several files are checked in
 * one process (a repository's pipelines, or a CI job's), each reported under its name.
 * @module
 */
import { parsePipeline } from '@sluice/pipeline';
import { localStepTypes } from './run/local-step-types.js';
import { readPipelineFile } from './run/pipeline-file.js';
import { printIssues } from '../ui/print-issues.js';
import { safeJson } from '../ui/safe-text.js';
import type { Terminal } from '../ui/terminal.js';

export interface ValidateOptions {
  cwd: string;
  output?: 'text' | 'json';
  /** `--step-types` directories. */
  stepTypes?: string[];
  /** `SLUICE_STEP_TYPES` directories. */
  stepTypeDirs?: string[];
}

/**
 * Exit code: 0 when every file is valid (warnings allowed), 1 when any has problems. With
 * `-o json`, one file prints its report; several print `{"kind": "List", "items": [...]}`.
 * Every file is read before any is checked, so a missing one fails the command at once.
 */
export function validateCommand(
  term: Terminal,
  files: readonly string[],
  options: ValidateOptions,
): number {
  const sources = files.length === 0 ? [readPipelineFile(undefined, options.cwd)] : [];
  for (const file of files) sources.push(readPipelineFile(file, options.cwd));
  const reports = sources.map((source) => {
    const stepTypes = localStepTypes(term, { stepTypeDirs: options.stepTypeDirs ?? [] }, source, {
      flags: options.stepTypes ?? [],
      cwd: options.cwd,
    });
    return { source, result: parsePipeline(source.text, { file: source.display, stepTypes }) };
  });
  const valid = reports.every(({ result }) => result.ok);
  if (options.output === 'json') {
    const items = reports.map(({ source, result }) => ({
      file: source.display,
      valid: result.ok,
      issues: result.issues,
    }));
    const document = items.length === 1 ? items[0] : { kind: 'List', items };
    term.out(safeJson(document, 2));
    return valid ? 0 : 1;
  }
  for (const { source, result } of reports) {
    if (result.issues.length > 0) printIssues(term, result.issues, source.text);
    if (result.ok)
      term.out(
        term.paint('green', `${source.display} is valid: ${result.pipeline.steps.length} steps`),
      );
  }
  return valid ? 0 : 1;
}
