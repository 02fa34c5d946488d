/**
 * Small helpers over plain YAML/JSON values: what a value is called in a step-type message,
 * deep equality for `enum`, which strings are only known at run time, and copies and key writes
 * that treat `__proto__` as an ordinary key (the parser's step normalization uses those too).
 * @module
 */

import { isPlainMap } from '../schema/validators.js';

/** `a number (42)`, `a string ("main")`, `a list`: the "got ..." half of a message. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `a string (${JSON.stringify(clip(value))})`;
  if (typeof value === 'number') return `a number (${String(value)})`;
  if (typeof value === 'boolean') return `a boolean (${String(value)})`;
  if (isPlainMap(value)) return 'a map';
  // !!set, !!omap, !!binary, !!timestamp: YAML tags that give no plain JSON value.
  return `a ${value.constructor.name}`;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * A string holding `${{VAR}}`: its value exists only once the build runs, so arguments written
 * this way are accepted whatever type the schema asks for and are passed on untouched.
 */
export function isRuntimeValue(value: unknown): value is string {
  return typeof value === 'string' && /\$\{\{[^}]*\}\}/.test(value);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isPlainMap(a) && isPlainMap(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}

/** A copy that shares nothing with the original, so an expansion cannot alter the template. */
export function cloneValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneValue);
  if (isPlainMap(value)) {
    // fromEntries defines keys, so a `__proto__` key stays a key instead of setting the prototype.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cloneValue(item)]));
  }
  return value;
}

/** `target[key] = value` that treats `__proto__` as an ordinary key. */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
