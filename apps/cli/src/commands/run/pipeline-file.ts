/**
 * Finds and reads the pipeline file a command works on (`codefresh.yml` by default).
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { InputError, NotFoundError } from '@sluice/errors';

export interface PipelineFile {
  path: string;
  /** As the user wrote it, for messages. */
  display: string;
  text: string;
  /** The file's stem, or its directory's name for codefresh.yml. */
  name: string;
}

const DEFAULT_NAMES = ['codefresh.yml', 'codefresh.yaml'];

export function readPipelineFile(file: string | undefined, cwd: string): PipelineFile {
  const display =
    file ??
    DEFAULT_NAMES.find((name) => existsSync(resolve(cwd, name))) ??
    DEFAULT_NAMES[0] ??
    'codefresh.yml';
  const path = resolve(cwd, display);
  if (!existsSync(path)) {
    throw new NotFoundError(
      'SLUICE_PIPELINE_FILE_NOT_FOUND',
      `Pipeline file ${display} does not exist`,
      {
        hint: file ? 'Check the path' : 'Pass the file: sluice run path/to/codefresh.yml',
      },
    );
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(
      'SLUICE_PIPELINE_FILE_UNREADABLE',
      `Cannot read pipeline file ${display}`,
      { cause: err },
    );
  }
  const stem = basename(path, extname(path));
  const name = DEFAULT_NAMES.some((n) => basename(path) === n) ? basename(dirname(path)) : stem;
  return { path, display, text, name };
}
