/**
 * How messages name values and fields (`the string "16GB"`, `"volumeSize"`, `Item 0 of
 * "tolerations"`). Closest-name suggestions come from `@sluice/errors`, shared with the pipeline
 * package.
 * @module
 */

/** The value as a message names it: `the string "zsh"`, `the number 5`, `a list`. */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `the string ${JSON.stringify(truncate(value))}`;
  if (typeof value === 'number' || typeof value === 'boolean') {
    return `the ${typeof value} ${String(value)}`;
  }
  return `a ${typeof value}`;
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** How a message names the field at `path`: `"image"`, `Item 2 of "tolerations"`. */
export function leaf(path: readonly (string | number)[]): string {
  const last = path[path.length - 1];
  if (typeof last !== 'number') return last === undefined ? 'The spec' : `"${last}"`;
  const parent = path[path.length - 2];
  return parent === undefined ? `Item ${last}` : `Item ${last} of "${String(parent)}"`;
}

/** A map from YAML or JSON: not a list, not null. */
export function isPlainMap(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
