/**
 * `when.branch.only` / `when.branch.ignore`: exact names or `/regex/flags` literals.
 * @module
 */
import type { BranchFilter } from './model.js';

const REGEX_LITERAL = /^\/(.*)\/([a-z]*)$/s;

export type BranchPatternResult =
  { ok: true; test: (branch: string) => boolean } | { ok: false; message: string };

export function compileBranchPattern(pattern: string): BranchPatternResult {
  const literal = REGEX_LITERAL.exec(pattern);
  if (literal === null) return { ok: true, test: (branch) => branch === pattern };
  try {
    // `g` and `y` make `test` remember where it stopped; a branch filter must not.
    const regex = new RegExp(literal[1] ?? '', (literal[2] ?? '').replace(/[gy]/g, ''));
    return { ok: true, test: (branch) => regex.test(branch) };
  } catch (err) {
    return {
      ok: false,
      message: `Branch pattern "${pattern}" is not a valid regular expression: ${reason(err)}`,
    };
  }
}

/** `Invalid regular expression: /[/: Unterminated character class` → `unterminated character class`. */
function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const last = message.split(': ').pop() ?? message;
  return last.charAt(0).toLowerCase() + last.slice(1);
}

function matchesAny(patterns: readonly string[], branch: string): boolean {
  return patterns.some((p) => {
    const compiled = compileBranchPattern(p);
    return compiled.ok && compiled.test(branch);
  });
}

/** True when the step may run on `branch`. */
export function branchAllowed(filter: BranchFilter, branch: string): boolean {
  if (filter.only !== undefined && !matchesAny(filter.only, branch)) return false;
  if (filter.ignore !== undefined && matchesAny(filter.ignore, branch)) return false;
  return true;
}
