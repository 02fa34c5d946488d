/**
 * `when.branch.only` / `when.branch.ignore`: exact names or `/regex/flags` literals, matched by
 * RE2's linear-time engine (`linear-regex.ts`): no lookaround, no backreferences.
 * @module
 */
import { compileLinearRegex } from './linear-regex.js';
import type { BranchFilter } from './model.js';

const REGEX_LITERAL = /^\/(.*)\/([a-z]*)$/s;

export type BranchPatternResult =
  | {
      ok: true;
      test: (branch: string) => boolean;
      /** RE2's program size (`LinearRegex.size`); 0 for a plain name. */
      size: number;
    }
  | { ok: false; message: string };

export function compileBranchPattern(pattern: string): BranchPatternResult {
  const literal = REGEX_LITERAL.exec(pattern);
  if (literal === null) return { ok: true, test: (branch) => branch === pattern, size: 0 };
  // Linear time: a branch name comes from whoever pushes, the pattern from whoever configured.
  const compiled = compileLinearRegex(literal[1] ?? '', literal[2] ?? '');
  if (!compiled.ok)
    return {
      ok: false,
      message: `Branch pattern "${pattern}" is not a valid regular expression: ${compiled.reason}`,
    };
  const { regex } = compiled;
  return { ok: true, test: (branch) => regex.test(branch), size: regex.size };
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
