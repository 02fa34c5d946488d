/**
 * A trigger's branch filter, Codefresh style: a `/regex/flags` literal such as `/^main$/` or
 * `/^release-.*$/i`, or a plain name that must match exactly. The same rules as a step's
 * `when.branch`, so one filter means the same thing in both places. `g` and `y` are ignored.
 * Both are matched by RE2's linear-time engine (`compileLinearRegex` in `@sluice/pipeline`): the
 * branch name comes from whoever pushes, so a backtracking engine would let one push with a
 * crafted name block the server. A pattern RE2 cannot run (lookaround, backreferences) is
 * refused when the trigger is saved.
 * @module
 */
import { InputError } from '@sluice/errors';
import { compileBranchPattern } from '@sluice/pipeline';

export const TRIGGER_BRANCH_FILTER_INVALID = 'SLUICE_TRIGGER_BRANCH_FILTER_INVALID';

export type BranchFilterCheck = { ok: true } | { ok: false; message: string };

/** For validating a trigger when it is saved. An empty filter matches every branch. */
export function checkBranchFilter(filter: string): BranchFilterCheck {
  if (filter === '') return { ok: true };
  const compiled = compileBranchPattern(filter);
  return compiled.ok ? { ok: true } : { ok: false, message: compiled.message };
}

/**
 * True when `branch` passes `filter`. An empty filter matches every branch. An invalid regular
 * expression is an InputError: it should have been refused by `checkBranchFilter` on save.
 */
export function matchesBranchFilter(filter: string, branch: string): boolean {
  if (filter === '') return true;
  const compiled = compileBranchPattern(filter);
  if (!compiled.ok) throw new InputError(TRIGGER_BRANCH_FILTER_INVALID, compiled.message);
  return compiled.test(branch);
}
