/**
 * The next time a cron schedule fires, in UTC, at minute resolution.
 * @module
 */
import { InternalError } from '@sluice/errors';
import type { CronSchedule } from './cron-schedule.js';

export const CRON_NEXT_RUN_FAILED = 'SLUICE_CRON_NEXT_RUN_FAILED';

const MINUTE_MS = 60_000;
/** Feb 29 can be 8 years away (2096 → 2104); anything parseCron accepts fires sooner than this. */
const SEARCH_YEARS = 12;

/** The first minute strictly after `after` that the schedule allows. */
export function nextRun(schedule: CronSchedule, after: Date): Date {
  const start = after.getTime();
  if (Number.isNaN(start))
    throw new InternalError(CRON_NEXT_RUN_FAILED, 'nextRun needs a valid date, got Invalid Date');
  const allowed = {
    minutes: new Set(schedule.minutes),
    hours: new Set(schedule.hours),
    months: new Set(schedule.months),
  };
  const limit = start + SEARCH_YEARS * 366 * 24 * 60 * MINUTE_MS;
  let t = Math.floor(start / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  while (t <= limit) {
    const d = new Date(t);
    const [y, mo, day, h, mi] = [
      d.getUTCFullYear(),
      d.getUTCMonth(),
      d.getUTCDate(),
      d.getUTCHours(),
      d.getUTCMinutes(),
    ];
    // Each miss jumps to the start of the next month, day, hour or minute.
    if (!allowed.months.has(mo + 1)) t = Date.UTC(y, mo + 1, 1);
    else if (!dayMatches(schedule, d)) t = Date.UTC(y, mo, day + 1);
    else if (!allowed.hours.has(h)) t = Date.UTC(y, mo, day, h + 1);
    else if (!allowed.minutes.has(mi)) t = Date.UTC(y, mo, day, h, mi + 1);
    else return d;
  }
  throw new InternalError(
    CRON_NEXT_RUN_FAILED,
    `Cron schedule "${schedule.expression}" has no run within ${SEARCH_YEARS} years of ${after.toISOString()}`,
  );
}

/** Both day fields restricted: either may match. One restricted: that one decides. */
function dayMatches(schedule: CronSchedule, d: Date): boolean {
  const inMonth = schedule.daysOfMonth.includes(d.getUTCDate());
  const inWeek = schedule.daysOfWeek.includes(d.getUTCDay());
  if (schedule.anyDayOfMonth && schedule.anyDayOfWeek) return true;
  if (schedule.anyDayOfMonth) return inWeek;
  if (schedule.anyDayOfWeek) return inMonth;
  return inMonth || inWeek;
}
