/**
 * A password given on standard input (`--password-stdin`, `--registry-password-stdin`), so it
 * never shows in the process list or the shell history. One trailing newline is dropped.
 * @module
 */
import { readFileSync } from 'node:fs';
import { InputError } from '@sluice/errors';

export function readSecretStdin(
  flag: string,
  read: () => string = () => readFileSync(0, 'utf8'),
): string {
  const value = read().replace(/\r?\n$/, '');
  if (value === '')
    throw new InputError('SLUICE_CLI_EMPTY_STDIN', `${flag} read nothing from standard input`, {
      hint: `Pipe the password in: printf %s "$PASSWORD" | sluice ... ${flag}`,
    });
  return value;
}
