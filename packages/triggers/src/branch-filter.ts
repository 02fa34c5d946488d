/**
 * A trigger's branch filter, Codefresh style: a `/regex/flags` literal such as `/^main$/` or
 * `/^release-.*$/i`, or a plain name that must match exactly. The same rules as a step's
 * `when.branch`, so one filter means the same thing in both places. `g` and `y` are ignored.
 * Both are matched by RE2's linear-time engine (`compileLinearRegex` in `@sluice/pipeline`): the
 * branch name comes from whoever pushes, so a backtracking engine would let one push with a
 * crafted name block the server. A pattern RE2 cannot run (lookaround, backreferences) is
 * refused when the trigger is saved, and so is one whose compiled program is larger than
 * `BRANCH_FILTER_MAX_SIZE`: linear in the branch's length is still the program's size per
 * character, and counted repetitions multiply it (`[a-z0-9-]{0,200}` ten times compiles to
 * 4,000 instructions and took 0.6 s per branch name).
 * @module
 */
import { InputError } from '@sluice/errors';
import { compileBranchPattern } from '@sluice/pipeline';

export const TRIGGER_BRANCH_FILTER_INVALID = 'SLUICE_TRIGGER_BRANCH_FILTER_INVALID';

/**
 * Instructions of RE2's program a branch filter may compile to: an alternation of a hundred
 * branch names fits; matching it costs at most milliseconds per branch name.
 */
export const BRANCH_FILTER_MAX_SIZE = 2_000;

export type BranchFilterCheck = { ok: true } | { ok: false; message: string };

/** True for a `/regex/flags` literal (compiled and matched by RE2), false for a plain name. */
export function isRegexBranchFilter(filter: string): boolean {
  return /^\/.*\/[a-z]*$/s.test(filter);
}

/** For validating a trigger when it is saved. An empty filter matches every branch. */
export function checkBranchFilter(filter: string): BranchFilterCheck {
  if (filter === '') return { ok: true };
  const compiled = compileBranchPattern(filter);
  if (!compiled.ok) return { ok: false, message: compiled.message };
  if (compiled.size > BRANCH_FILTER_MAX_SIZE)
    return {
      ok: false,
      message: `Branch pattern "${filter}" is too complex: RE2 compiles it to ${compiled.size.toLocaleString('en-US')} instructions, more than ${BRANCH_FILTER_MAX_SIZE.toLocaleString('en-US')}; counted repetitions such as {0,200} multiply it, so write * or + instead, or fewer alternatives`,
    };
  return { ok: true };
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
