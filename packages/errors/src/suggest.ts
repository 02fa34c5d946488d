/**
 * Closest-name suggestions for typos (`comands` → `commands`), for every message that names an
 * unknown field, type or function.
 * @module
 */

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

export function didYouMean(name: string, known: Iterable<string>): string {
  const match = closest(name, known);
  return match === undefined ? '' : `; did you mean "${match}"?`;
}
