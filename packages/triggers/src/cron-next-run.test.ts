import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextRun } from './cron-next-run.js';
import { requireCron } from './cron-schedule.js';

// [expression, after, expected next run]; all UTC.
const TABLE: [string, string, string][] = [
  ['* * * * *', '2024-01-01T00:00:00Z', '2024-01-01T00:01:00Z'],
  ['* * * * *', '2024-01-01T00:00:30.5Z', '2024-01-01T00:01:00Z'],
  ['0 * * * *', '2024-01-01T00:00:00.5Z', '2024-01-01T01:00:00Z'],
  ['*/5 * * * *', '2024-01-01T00:03:00Z', '2024-01-01T00:05:00Z'],
  ['*/5 * * * *', '2024-01-01T00:55:00Z', '2024-01-01T01:00:00Z'],
  ['10-50/20 * * * *', '2024-01-01T00:50:00Z', '2024-01-01T01:10:00Z'],
  ['5/15 * * * *', '2024-01-01T00:50:00Z', '2024-01-01T01:05:00Z'],
  ['0 9,17 * * *', '2024-01-01T09:00:00Z', '2024-01-01T17:00:00Z'],
  // Day, month and year boundaries.
  ['0 0 * * *', '2024-12-31T23:59:00Z', '2025-01-01T00:00:00Z'],
  ['@hourly', '2024-02-29T23:30:00Z', '2024-03-01T00:00:00Z'],
  ['@daily', '2024-02-28T00:00:00Z', '2024-02-29T00:00:00Z'],
  ['@daily', '2023-02-28T00:00:00Z', '2023-03-01T00:00:00Z'],
  ['@monthly', '2024-01-31T12:00:00Z', '2024-02-01T00:00:00Z'],
  ['@yearly', '2024-06-01T00:00:00Z', '2025-01-01T00:00:00Z'],
  ['0 0 31 12 *', '2024-12-31T00:00:00Z', '2025-12-31T00:00:00Z'],
  ['0 12 31 * *', '2024-04-15T00:00:00Z', '2024-05-31T12:00:00Z'],
  // Leap days: every 4 years, except 2100.
  ['0 0 29 2 *', '2024-03-01T00:00:00Z', '2028-02-29T00:00:00Z'],
  ['0 0 29 2 *', '2096-03-01T00:00:00Z', '2104-02-29T00:00:00Z'],
  ['59 23 28-31 2 *', '2023-02-28T23:59:00Z', '2024-02-28T23:59:00Z'],
  ['59 23 28-31 2 *', '2024-02-28T23:59:00Z', '2024-02-29T23:59:00Z'],
  // Weekdays: 2024-03-01 is a Friday, 2024-03-02 a Saturday.
  ['30 9 * * mon-fri', '2024-03-01T10:00:00Z', '2024-03-04T09:30:00Z'],
  ['@weekly', '2024-03-02T12:00:00Z', '2024-03-03T00:00:00Z'],
  ['0 6 * * 7', '2024-03-02T12:00:00Z', '2024-03-03T06:00:00Z'],
  ['0 0 1 jan,jul *', '2024-01-01T00:00:00Z', '2024-07-01T00:00:00Z'],
  // Both day fields restricted: the 1st OR a Monday (2024-09-30 is a Monday).
  ['0 0 1 * mon', '2024-09-25T00:00:00Z', '2024-09-30T00:00:00Z'],
  ['0 0 1 * mon', '2024-09-30T00:00:00Z', '2024-10-01T00:00:00Z'],
  ['0 0 29 2 mon', '2024-02-27T00:00:00Z', '2024-02-29T00:00:00Z'],
  ['0 0 29 2 mon', '2024-03-01T00:00:00Z', '2025-02-03T00:00:00Z'],
  // Only the weekday restricted: Fridays the 13th are not required.
  ['0 0 * * fri', '2024-09-01T00:00:00Z', '2024-09-06T00:00:00Z'],
];

test('next run times across minute, month, year and leap-day boundaries', () => {
  for (const [expression, after, expected] of TABLE)
    assert.equal(
      nextRun(requireCron(expression), new Date(after)).toISOString(),
      new Date(expected).toISOString(),
      `${expression} after ${after}`,
    );
});

test('consecutive runs of a schedule step through the table of times', () => {
  const schedule = requireCron('0 0 1,15 * *');
  const runs: string[] = [];
  let at = new Date('2024-11-20T00:00:00Z');
  for (let i = 0; i < 4; i += 1) {
    at = nextRun(schedule, at);
    runs.push(at.toISOString().slice(0, 10));
  }
  assert.deepEqual(runs, ['2024-12-01', '2024-12-15', '2025-01-01', '2025-01-15']);
});

test('an invalid date is an InternalError', () => {
  assert.throws(() => nextRun(requireCron('@daily'), new Date('nope')), {
    name: 'InternalError',
    code: 'SLUICE_CRON_NEXT_RUN_FAILED',
  });
});
