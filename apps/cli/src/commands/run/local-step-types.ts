/**
 * The step-type catalog of a local command (`sluice run`, `sluice validate`): the directories of
 * `step-type-dirs.ts`, loaded with @sluice/pipeline. A step-type file that does not parse is
 * reported as a warning (it is not the pipeline's problem unless the pipeline uses it, and then
 * its typed step is reported too).
 * @module
 */
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { formatIssue, loadStepTypeCatalog } from '@sluice/pipeline';
import type { StepTypeCatalog } from '@sluice/pipeline';
import type { CliConfig } from '../../config.js';
import type { PipelineFile } from './pipeline-file.js';
import { stepTypeDirectories } from './step-type-dirs.js';
import type { Terminal } from '../../ui/terminal.js';

export function localStepTypes(
  term: Terminal,
  config: Pick<CliConfig, 'stepTypeDirs'>,
  source: PipelineFile,
  options: { flags: readonly string[]; cwd: string },
): StepTypeCatalog {
  const directories = stepTypeDirectories({
    flags: options.flags,
    env: config.stepTypeDirs,
    cwd: options.cwd,
    pipelineDir: dirname(source.path),
  });
  const catalog = loadStepTypeCatalog(directories, { fs });
  for (const problem of catalog.problems) term.err(term.paint('yellow', formatIssue(problem)));
  return catalog;
}
