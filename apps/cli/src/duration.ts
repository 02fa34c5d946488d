/**
 * Durations as people type them on the command line: `90s`, `15m`, `1h`, `30d`, `2w` (a whole
 * number and one unit), for `create token --expires` and `get audit --since`.
 * @module
 */
import { InputError } from '@sluice/errors';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;

/** Seconds in `text`; an InputError naming the flag and the value otherwise. */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d{1,9})([smhdw])$/.exec(text.trim());
  const unit = match?.[2] as keyof typeof UNIT_SECONDS | undefined;
  const count = Number(match?.[1]);
  if (unit === undefined || count === 0)
    throw new InputError(
      'SLUICE_CLI_BAD_DURATION',
      `${flag} takes a duration like 90s, 15m, 1h, 30d or 2w, got "${text}"`,
      { hint: 'A whole number above 0 and one unit: s, m, h, d or w' },
    );
  return count * UNIT_SECONDS[unit];
}
