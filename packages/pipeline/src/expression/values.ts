/**
 * Value semantics shared by operators and functions: truthiness, conversions and comparison.
 *
 * Comparison rules, chosen to be predictable for CI conditions whose variables arrive as strings:
 * - `==` / `!=`: values of the same type compare strictly (`===`). A number and a numeric string
 *   (decimal, optional sign and exponent, surrounding spaces allowed) compare as numbers, so
 *   `"42" == 42`. Every other mixed pair is unequal: `"true" != true`, `0 != false`,
 *   `null` equals only `null`.
 * - `<` `<=` `>` `>=`: two numbers, or a number and a numeric string, compare as numbers; two
 *   strings compare by UTF-16 code units (JavaScript order, so `"10" < "9"`). Any other pair
 *   (booleans, null, a number against a non-numeric string) is an issue, not a silent false.
 * @module
 */

import type { ExprValue } from './expression-types.js';

const NUMERIC_STRING = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** Codefresh truthiness: non-empty string, non-zero number (NaN is false), true; null is false. */
export function isTruthy(value: ExprValue): boolean {
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  return value === true;
}

/** JavaScript `String()`: `null` becomes "null", numbers use their shortest form. */
export function toText(value: ExprValue): string {
  return String(value);
}

/** The number a number or numeric string stands for; undefined for anything else. */
export function numericValue(value: ExprValue): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && NUMERIC_STRING.test(value)) return Number(value);
  return undefined;
}

/** Names a value with its type for messages: `string "abc"`, `number 5`, `null`. */
export function describeValue(value: ExprValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `string ${JSON.stringify(shown)}`;
  }
  return `${typeof value} ${String(value)}`;
}

/** `==` as described in the module comment. */
export function valuesEqual(left: ExprValue, right: ExprValue): boolean {
  if (typeof left === typeof right) return left === right;
  if (typeof left === 'number' && typeof right === 'string') return left === numericValue(right);
  if (typeof left === 'string' && typeof right === 'number') return numericValue(left) === right;
  return false;
}

/** Negative, zero or positive like a sort comparator; undefined when the pair cannot be ordered. */
export function compareValues(left: ExprValue, right: ExprValue): number | undefined {
  if (typeof left === 'string' && typeof right === 'string') {
    if (left === right) return 0;
    return left < right ? -1 : 1;
  }
  if (typeof left !== 'number' && typeof right !== 'number') return undefined;
  const a = numericValue(left);
  const b = numericValue(right);
  if (a === undefined || b === undefined) return undefined;
  if (a === b) return 0;
  // NaN is unordered: every ordering operator is false, as in JavaScript.
  return a < b ? -1 : a > b ? 1 : Number.NaN;
}
