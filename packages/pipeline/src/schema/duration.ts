/**
 * Step timeouts (reference §5.2): `45m`, `1.5h`, `30s`, or units combined (`2h30m`). `0` and
 * an empty value mean no limit. A bare number is refused rather than guessed at: Codefresh
 * documents units, and reading `30` as seconds or minutes would be wrong one way or the other.
 * @module
 */

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };
/** Timers in Node (and Codefresh's own limit, about 24.8 days) stop at 2^31 - 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export type DurationResult = { ok: true; ms: number | undefined } | { ok: false; problem: string };

export function parseDuration(value: unknown): DurationResult {
  if (value === null || value === undefined || value === 0 || value === '0' || value === '') {
    return { ok: true, ms: undefined };
  }
  if (typeof value !== 'string' || !/^(?:\d+(?:\.\d+)?[smh])+$/.test(value.trim())) {
    return { ok: false, problem: 'must be a duration like 45m or 1.5h' };
  }
  let ms = 0;
  for (const [, amount, unit] of value.trim().matchAll(/(\d+(?:\.\d+)?)([smh])/g)) {
    ms += Number(amount) * (UNIT_MS[unit ?? 's'] ?? 1000);
  }
  ms = Math.round(ms);
  if (ms > MAX_TIMEOUT_MS) return { ok: false, problem: 'must be at most 596h (about 24.8 days)' };
  return { ok: true, ms: ms === 0 ? undefined : ms };
}
