/**
 * How messages name values and fields (`the string "16GB"`, `"volumeSize"`, `Item 0 of
 * "tolerations"`) and closest-name suggestions for typos. Kept small and local: the pipeline
 * package has the same few functions, and a pure package may not depend on it.
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

export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(above + 1, (prev[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return prev[b.length] ?? 0;
}

/** The known name nearest to `name`, when it is near enough to be a likely typo. */
export function closest(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** `; did you mean "image"?`, or nothing when no known name is close. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const match = closest(name, known);
  return match === undefined ? '' : `; did you mean "${match}"?`;
}

/** A map from YAML or JSON: not a list, not null. */
export function isPlainMap(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
