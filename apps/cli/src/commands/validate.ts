/**
 * `sluice validate [FILE]`: every problem in the pipeline with file:line:column, typed steps
 * checked against the same step-type directories as `sluice run`.
 * @module
 */
import { parsePipeline } from '@sluice/pipeline';
import { localStepTypes } from './run/local-step-types.js';
import { readPipelineFile } from './run/pipeline-file.js';
import { printIssues } from '../ui/print-issues.js';
import type { Terminal } from '../ui/terminal.js';

export interface ValidateOptions {
  cwd: string;
  output?: 'text' | 'json';
  /** `--step-types` directories. */
  stepTypes?: string[];
  /** `SLUICE_STEP_TYPES` directories. */
  stepTypeDirs?: string[];
}

/** Exit code: 0 valid (warnings allowed), 1 problems found. */
export function validateCommand(
  term: Terminal,
  file: string | undefined,
  options: ValidateOptions,
): number {
  const source = readPipelineFile(file, options.cwd);
  const stepTypes = localStepTypes(term, { stepTypeDirs: options.stepTypeDirs ?? [] }, source, {
    flags: options.stepTypes ?? [],
    cwd: options.cwd,
  });
  const result = parsePipeline(source.text, { file: source.display, stepTypes });
  if (options.output === 'json') {
    term.out(
      JSON.stringify({ file: source.display, valid: result.ok, issues: result.issues }, null, 2),
    );
    return result.ok ? 0 : 1;
  }
  if (result.issues.length > 0) printIssues(term, result.issues, source.text);
  if (result.ok)
    term.out(
      term.paint('green', `${source.display} is valid: ${result.pipeline.steps.length} steps`),
    );
  return result.ok ? 0 : 1;
}
