/**
 * Files given with `-f` (a path, or `-` for standard input), and the problems the server finds
 * in a YAML document it refuses (`details.issues`, each with its line and column).
 * @module
 */
import { readFileSync } from 'node:fs';
import { InputError, isSluiceError } from '@sluice/errors';

export function readDocument(file: string): string {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError('SLUICE_CLI_FILE_UNREADABLE', `Cannot read ${file}`, {
      cause: err,
      hint: 'Check the path given to -f',
    });
  }
}

export interface DocumentIssue {
  line: number;
  column: number;
  message: string;
}

/** The issues of a 422 answer for a YAML document; undefined for any other error. */
export function issuesOf(err: unknown): DocumentIssue[] | undefined {
  if (!isSluiceError(err)) return undefined;
  const details = err.details?.details as { issues?: DocumentIssue[] } | undefined;
  return Array.isArray(details?.issues) ? details.issues : undefined;
}
