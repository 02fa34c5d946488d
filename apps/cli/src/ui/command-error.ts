/**
 * A command's failure as people read it, and its exit code: the message (its causes with
 * `--verbose`), the hint, and, without `--verbose`, the stack of what is not a Sluice error (a
 * bug of ours). Shared by the command tree (main.ts) and the engine's own
 * entry point (engine-entry.ts), so `sluice engine` fails the same way from either.
 * @module
 */
import { describeError, exitCodeFor, isSluiceError } from '@sluice/errors';
import { printError } from './terminal.js';
import type { Terminal } from './terminal.js';

export function reportCommandError(term: Terminal, err: unknown, verbose: boolean): number {
  printError(
    term,
    describeError(err, { verbose }).replace(/\nhint: .*$/s, ''),
    isSluiceError(err) ? err.hint : undefined,
  );
  if (!isSluiceError(err) && !verbose && err instanceof Error && err.stack) term.err(err.stack);
  return exitCodeFor(err);
}
