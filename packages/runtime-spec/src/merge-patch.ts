/**
 * Merging of specs: RFC 7386 JSON merge patch (`sluice patch re -f`), and the deep merge of a
 * child spec over its `extends` parents. Both return new values and never change their inputs.
 * @module
 */
import { isPlainMap } from './describe-value.js';

/**
 * RFC 7386: a map patch merges into a map target key by key, `null` deletes a key, and any
 * other patch value (a list, a scalar) replaces the target whole.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainMap(patch)) return patch;
  const result: Record<string, unknown> = isPlainMap(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, mergePatch(own(result, key), value));
  }
  return result;
}

/**
 * `child` over `parent`: maps merge key by key, everything else (lists included) in the child
 * replaces the parent's, and what the child leaves out is kept.
 */
export function deepMerge<T>(parent: T, child: T): T {
  return mergeValues(parent, child) as T;
}

function mergeValues(parent: unknown, child: unknown): unknown {
  if (child === undefined) return parent;
  if (!isPlainMap(parent) || !isPlainMap(child)) return child;
  const result: Record<string, unknown> = { ...parent };
  for (const [key, value] of Object.entries(child)) {
    setOwn(result, key, mergeValues(own(parent, key), value));
  }
  return result;
}

/** Plain assignment would treat a `__proto__` key from JSON as the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function own(source: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(source, key) ? source[key] : undefined;
}
