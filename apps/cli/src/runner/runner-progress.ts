/**
 * How `sluice runner init|attach` show their work: preflight checks one a line (✔, ! or ✖ with
 * what to do), then numbered steps, each with what it did; a failed step says why and that the
 * same command resumes. A step's error may carry its own exit code (the test build's).
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { Terminal } from '../ui/terminal.js';
import type { Check } from './runner-cluster.js';

export const MARK = { ok: '✔', warn: '!', fail: '✖' } as const;

export interface Step {
  title: string;
  /** Does the step, or finds it done; resolves to what it did, for the progress line. */
  run(): Promise<string>;
}

/** An error that ends the command with its own exit code. */
export class StepExit extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Prints the checks; false when one failed. */
export function printChecks(term: Terminal, checks: Check[]): boolean {
  for (const check of checks) {
    const colour = check.status === 'ok' ? 'green' : check.status === 'warn' ? 'yellow' : 'red';
    term.err(`  ${term.paint(colour, MARK[check.status])} ${check.text}`);
    if (check.hint && check.status !== 'ok') term.err(term.paint('dim', `      ${check.hint}`));
  }
  return checks.every((c) => c.status !== 'fail');
}

/** Runs the steps in order; the exit code (0, or the failed step's). */
export async function runSteps(term: Terminal, steps: Step[], done?: string): Promise<number> {
  for (const [i, step] of steps.entries()) {
    term.err(`${term.paint('bold', `[${i + 1}/${steps.length}]`)} ${step.title}…`);
    try {
      term.err(`  ${term.paint('green', MARK.ok)} ${await step.run()}`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      term.err(term.paint('red', `  ${MARK.fail} ${step.title} failed: ${message}`));
      const hint = isSluiceError(err) ? err.hint : undefined;
      if (hint) term.err(term.paint('dim', `      ${hint}`));
      term.err(
        `Fix it and run the same command again: the ${i} step(s) done are found done and skipped.`,
      );
      return err instanceof StepExit ? err.exitCode : 1;
    }
  }
  if (done !== undefined) term.err(term.paint('green', done));
  return 0;
}
