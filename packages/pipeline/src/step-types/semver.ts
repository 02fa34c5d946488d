/**
 * The little of semver that step types need: is a version valid, which of two is newer, and the
 * newest of a list. Written here rather than pulled in, because `pipeline` has one dependency.
 * @module
 */

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  /** Dot-separated pre-release identifiers (`1.0.0-rc.1` → `['rc', '1']`); empty for a release. */
  prerelease: string[];
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;

export function parseSemVer(text: string): SemVer | undefined {
  const match = SEMVER.exec(text);
  if (match === null) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    prerelease: match[4] === undefined ? [] : match[4].split('.'),
  };
}

/** Negative when `a` is older than `b`; invalid versions sort before every valid one. */
export function compareSemVer(a: string, b: string): number {
  const [x, y] = [parseSemVer(a), parseSemVer(b)];
  if (x === undefined || y === undefined) {
    return (x === undefined ? 0 : 1) - (y === undefined ? 0 : 1) || a.localeCompare(b);
  }
  return (
    x.major - y.major ||
    x.minor - y.minor ||
    x.patch - y.patch ||
    comparePrerelease(x.prerelease, y.prerelease)
  );
}

/**
 * The version a step that names none gets: the newest release, or the newest pre-release when
 * there is no release at all (a `2.0.0-rc.1` should not silently replace a working `1.4.0`).
 */
export function newestVersion(versions: readonly string[]): string | undefined {
  const sorted = [...versions].sort(compareSemVer);
  const releases = sorted.filter((v) => parseSemVer(v)?.prerelease.length === 0);
  return releases.at(-1) ?? sorted.at(-1);
}

function comparePrerelease(a: string[], b: string[]): number {
  // A release is newer than any of its pre-releases.
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareIdentifier(a[i] ?? '', b[i] ?? '');
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

function compareIdentifier(a: string, b: string): number {
  const [numA, numB] = [/^\d+$/.test(a), /^\d+$/.test(b)];
  if (numA && numB) return Number(a) - Number(b);
  if (numA !== numB) return numA ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
