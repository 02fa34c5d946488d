// What the benchmarks report: seconds since a `process.hrtime.bigint()`, medians, rounding.

export function seconds(start) {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

export function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function round(x, digits = 3) {
  return Number(x.toFixed(digits));
}
