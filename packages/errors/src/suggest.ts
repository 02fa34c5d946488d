/**
 * Closest-name suggestions for typos (`comands` → `commands`), for every message that names an
 * unknown field, type or function.
 * @module
 */

export function editDistance(a: string, b: string): number {
  return boundedDistance(a, b, Infinity);
}

/**
 * The edit distance when it is at most `max`, else some number above `max`: a row whose every
 * cell is over `max` can only grow, so the rest is not computed.
 */
function boundedDistance(a: string, b: string, max: number): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0] ?? 0;
    prev[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const cell = Math.min(above + 1, (prev[j - 1] ?? 0) + 1, diagonal + cost);
      prev[j] = cell;
      diagonal = above;
      if (cell < rowMin) rowMin = cell;
    }
    if (rowMin > max) return rowMin;
  }
  return prev[b.length] ?? 0;
}

/**
 * The known name nearest to `name`, when it is near enough to be a likely typo. A candidate that
 * could neither be near enough nor beat the best so far is not measured in full (the distance is
 * at least the difference in length): a file with 14,000 typos asks this 14,000 times.
 */
export function closest(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    const max = Math.min(limit, bestDistance - 1);
    if (Math.abs(other.length - lower.length) > max) continue;
    const distance = boundedDistance(lower, other, max);
    if (distance < bestDistance && distance <= max) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

export function didYouMean(name: string, known: Iterable<string>): string {
  const match = closest(name, known);
  return match === undefined ? '' : `; did you mean "${match}"?`;
}
