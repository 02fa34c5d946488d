/**
 * Regular expressions written by users (branch filters, `match()` in conditions, step-type
 * argument patterns) run on RE2's linear-time engine (`re2js`, pure JavaScript), never on V8's
 * backtracking one: `/^(a+)+$/` against `'a'×60+'!'` would otherwise block the thread for
 * ever. RE2 has no lookaround and no backreferences; a pattern using them is refused with
 * RE2's reason, so it is found when the pattern is saved rather than when it runs.
 * @module
 */
import { RE2JS } from 're2js';

/** A compiled pattern; `test` finds a match anywhere, like `RegExp.prototype.test`. */
export interface LinearRegex {
  /** As `RegExp.prototype.source` gives it: `/` escaped, so `/${source}/` reads back. */
  readonly source: string;
  readonly flags: string;
  /**
   * Instructions in RE2's compiled program: what matching costs per character of the text, at
   * worst. Counted repetitions multiply it (`[a-z]{0,200}` is some 400).
   */
  readonly size: number;
  test(text: string): boolean;
}

export type LinearRegexResult = { ok: true; regex: LinearRegex } | { ok: false; reason: string };

/**
 * JavaScript flags this engine honours. `g`, `y` and `d` only change what `exec` remembers or
 * returns, so a yes/no test ignores them; `u` and `v` are RE2's default (code points).
 */
const FLAG_BITS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  g: 0,
  y: 0,
  d: 0,
  u: 0,
  v: 0,
};

/** `source` and `flags` as a JavaScript `RegExp` literal would take them. */
export function compileLinearRegex(source: string, flags = ''): LinearRegexResult {
  let bits = 0;
  for (const [index, flag] of [...flags].entries()) {
    const bit = FLAG_BITS[flag];
    if (bit === undefined) return { ok: false, reason: `unknown flag "${flag}"` };
    if (flags.indexOf(flag) !== index) return { ok: false, reason: `flag "${flag}" is repeated` };
    bits |= bit;
  }
  try {
    // translateRegExp rewrites JavaScript-only spellings (`\u0041`, `(?<name>…)`) for RE2.
    const re = RE2JS.compile(RE2JS.translateRegExp(source), bits);
    return {
      ok: true,
      regex: {
        source: literalSource(source),
        flags,
        size: re.programSize(),
        test: (text) => re.test(text),
      },
    };
  } catch (err) {
    return { ok: false, reason: reason(err) };
  }
}

/** Like V8: a `/` outside a character class is escaped; escapes and classes are kept. */
function literalSource(source: string): string {
  return source.replace(/\\.|\[(?:\\.|[^\]\\])*\]|\//g, (token) => (token === '/' ? '\\/' : token));
}

/**
 * `error parsing regexp: invalid or unsupported Perl syntax: `(?=`` → the part after the prefix,
 * and for the JavaScript features RE2 leaves out on purpose, why.
 */
function reason(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).replace(
    /^error parsing regexp: /,
    '',
  );
  return UNSUPPORTED.test(message) ? `${message} (${WHY_UNSUPPORTED})` : message;
}

const UNSUPPORTED = /unsupported Perl syntax|invalid escape sequence: `\\[1-9k]/;
const WHY_UNSUPPORTED =
  'patterns are matched in linear time by RE2, which has no lookaround or backreferences';
