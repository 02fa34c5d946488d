/**
 * The functions a condition may call, with their arity. Names are case-sensitive, as in Codefresh.
 * String functions convert their arguments with `String()`; numeric arguments accept numbers and
 * numeric strings.
 * @module
 */

import type { ExprValue, ExpressionContext } from './expression-types.js';
import { closest } from '@sluice/errors';
import { compileLinearRegex } from '../linear-regex.js';
import { describeValue, isTruthy, numericValue, toText } from './values.js';

/** A failure names the argument it is about, so the issue can point at it. */
export type FunctionOutcome =
  { ok: true; value: ExprValue } | { ok: false; message: string; argIndex?: number };

export interface BuiltinFunction {
  readonly minArgs: number;
  readonly maxArgs: number;
  /** Called only with between `minArgs` and `maxArgs` arguments. */
  apply(args: readonly ExprValue[], context: ExpressionContext): FunctionOutcome;
}

type NumberArg = { ok: true; value: number } | { ok: false; message: string; argIndex: number };

function arg(args: readonly ExprValue[], index: number): ExprValue {
  return args[index] ?? null;
}

function numberArg(args: readonly ExprValue[], index: number): NumberArg {
  const value = arg(args, index);
  const number = numericValue(value);
  if (number !== undefined) return { ok: true, value: number };
  return { ok: false, message: `Cannot use ${describeValue(value)} as a number`, argIndex: index };
}

function textFunction(apply: (text: string) => ExprValue): BuiltinFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    apply: (args) => ({ ok: true, value: apply(toText(arg(args, 0))) }),
  };
}

function mathFunction(apply: (n: number) => number): BuiltinFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    apply: (args) => {
      const n = numberArg(args, 0);
      return n.ok ? { ok: true, value: apply(n.value) } : n;
    },
  };
}

function searchFunction(apply: (text: string, search: string) => ExprValue): BuiltinFunction {
  return {
    minArgs: 2,
    maxArgs: 2,
    apply: (args) => ({ ok: true, value: apply(toText(arg(args, 0)), toText(arg(args, 1))) }),
  };
}

/** Explicit conversion: booleans and null convert as in JavaScript, but "abc" is an issue, not NaN. */
function toNumber(args: readonly ExprValue[]): FunctionOutcome {
  const value = arg(args, 0);
  if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
  if (value === null) return { ok: true, value: 0 };
  const number = numericValue(value);
  if (number !== undefined) return { ok: true, value: number };
  return { ok: false, message: `Cannot convert ${describeValue(value)} to a number`, argIndex: 0 };
}

function substring(args: readonly ExprValue[]): FunctionOutcome {
  const start = numberArg(args, 1);
  if (!start.ok) return start;
  const text = toText(arg(args, 0));
  if (args.length < 3) return { ok: true, value: text.substring(start.value) };
  const end = numberArg(args, 2);
  return end.ok ? { ok: true, value: text.substring(start.value, end.value) } : end;
}

/** `replace` swaps every occurrence of the literal `find`; `$` in the replacement is not special. */
function replace(args: readonly ExprValue[]): FunctionOutcome {
  const replacement = toText(arg(args, 2));
  const value = toText(arg(args, 0)).replaceAll(toText(arg(args, 1)), () => replacement);
  return { ok: true, value };
}

function match(args: readonly ExprValue[]): FunctionOutcome {
  const pattern = toText(arg(args, 1));
  // Linear time: the text is often a branch name or commit message someone else chose.
  const compiled = compileLinearRegex(pattern, isTruthy(arg(args, 2)) ? 'i' : '');
  if (!compiled.ok) {
    const message = `Invalid regular expression ${JSON.stringify(pattern)}: ${compiled.reason}`;
    return { ok: false, message, argIndex: 1 };
  }
  return { ok: true, value: compiled.regex.test(toText(arg(args, 0))) };
}

function lookupNames(
  args: readonly ExprValue[],
  context: ExpressionContext,
  labels: readonly string[],
): FunctionOutcome {
  const path: string[] = [];
  for (const [index, value] of args.entries()) {
    if (typeof value !== 'string') {
      const message = `${labels[index] ?? 'Name'} must be a string, got ${describeValue(value)}`;
      return { ok: false, message, argIndex: index };
    }
    path.push(value);
  }
  const found = context.lookup(path);
  if (found === undefined) {
    return { ok: false, message: `Unknown variable ${path.join('.')}`, argIndex: 0 };
  }
  return { ok: true, value: found };
}

/** Every function, in the order suggestions prefer on a tie. */
export const BUILTIN_FUNCTIONS: ReadonlyMap<string, BuiltinFunction> = new Map<
  string,
  BuiltinFunction
>([
  ['String', textFunction((text) => text)],
  ['Number', { minArgs: 1, maxArgs: 1, apply: toNumber }],
  [
    'Boolean',
    { minArgs: 1, maxArgs: 1, apply: (args) => ({ ok: true, value: isTruthy(arg(args, 0)) }) },
  ],
  ['round', mathFunction(Math.round)],
  ['floor', mathFunction(Math.floor)],
  ['upper', textFunction((text) => text.toUpperCase())],
  ['lower', textFunction((text) => text.toLowerCase())],
  ['trim', textFunction((text) => text.trim())],
  ['trimLeft', textFunction((text) => text.trimStart())],
  ['trimRight', textFunction((text) => text.trimEnd())],
  ['replace', { minArgs: 3, maxArgs: 3, apply: replace }],
  ['substring', { minArgs: 2, maxArgs: 3, apply: substring }],
  ['length', textFunction((text) => text.length)],
  ['includes', searchFunction((text, search) => text.includes(search))],
  ['indexOf', searchFunction((text, search) => text.indexOf(search))],
  ['match', { minArgs: 2, maxArgs: 3, apply: match }],
  [
    'Variable',
    { minArgs: 1, maxArgs: 1, apply: (args, ctx) => lookupNames(args, ctx, ['Variable name']) },
  ],
  [
    'Member',
    {
      minArgs: 2,
      maxArgs: 2,
      apply: (args, ctx) => lookupNames(args, ctx, ['Variable name', 'Member name']),
    },
  ],
]);

/** `Function "length" expects 1 argument, got 2` and the like. */
export function arityMessage(name: string, fn: BuiltinFunction, count: number): string {
  const expected =
    fn.minArgs === fn.maxArgs
      ? `${fn.minArgs}`
      : `${fn.minArgs} ${fn.maxArgs - fn.minArgs === 1 ? 'or' : 'to'} ${fn.maxArgs}`;
  const noun = fn.maxArgs === 1 ? 'argument' : 'arguments';
  return `Function "${name}" expects ${expected} ${noun}, got ${count}`;
}

/** `Unknown function "lenght"; did you mean "length"?`, without the hint when nothing is close. */
export function unknownFunctionMessage(name: string): string {
  const suggestion = closest(name, BUILTIN_FUNCTIONS.keys());
  const hint = suggestion === undefined ? '' : `; did you mean "${suggestion}"?`;
  return `Unknown function "${name}"${hint}`;
}
