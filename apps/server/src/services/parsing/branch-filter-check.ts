/**
 * A trigger's branch filter checked (when the trigger is saved) or matched (for each delivery),
 * where `ParsePool` runs it: a regular expression in a worker thread, which keeps what it
 * compiled, so a filter RE2 takes seconds to compile or a large program to match never holds up
 * the event loop; a plain name in place. Pure: nothing here knows which thread it is on.
 * @module
 */
import { compileBranchPattern } from '@sluice/pipeline';
import { checkBranchFilter, isRegexBranchFilter } from '@sluice/triggers';

/** `matches` is set when a branch was given; a filter that does not compile is not ok. */
export type BranchFilterAnswer = { ok: true; matches?: boolean } | { ok: false; message: string };

/** Compiled filters by text, the most recently used last. */
const compiled = new Map<string, (branch: string) => boolean>();
const COMPILED_LIMIT = 256;

/** Whether `filter` is matched in place: a plain name or none, an equality test. */
export function isPlainBranchFilter(filter: string): boolean {
  return !isRegexBranchFilter(filter);
}

/**
 * Without `branch`: whether `filter` may be saved (it compiles, within the size bound). With
 * one: whether it passes. A filter saved before the size bound still matches (in a worker).
 */
export function checkBranchFilterNow(filter: string, branch?: string): BranchFilterAnswer {
  if (branch === undefined) return checkBranchFilter(filter);
  if (filter === '') return { ok: true, matches: true };
  let test = compiled.get(filter);
  if (test === undefined) {
    const pattern = compileBranchPattern(filter);
    if (!pattern.ok) return pattern;
    test = pattern.test;
  }
  compiled.delete(filter);
  compiled.set(filter, test);
  if (compiled.size > COMPILED_LIMIT) compiled.delete(compiled.keys().next().value ?? filter);
  return { ok: true, matches: test(branch) };
}
