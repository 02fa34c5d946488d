import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCron, requireCron } from './cron-schedule.js';

const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

test('fields parse into sorted value sets', () => {
  const result = parseCron('*/15 9-17 * * mon-fri');
  assert.ok(result.ok);
  assert.deepEqual(result.schedule, {
    expression: '*/15 9-17 * * mon-fri',
    minutes: [0, 15, 30, 45],
    hours: range(9, 17),
    daysOfMonth: range(1, 31),
    months: range(1, 12),
    daysOfWeek: [1, 2, 3, 4, 5],
    anyDayOfMonth: true,
    anyDayOfWeek: false,
  });
});

test('lists, steps on ranges and on single values, names in any case, 7 as Sunday', () => {
  const cases: [string, keyof Omit<ReturnType<typeof requireCron>, 'expression'>, unknown][] = [
    ['1,15,30 * * * *', 'minutes', [1, 15, 30]],
    ['10-50/20 * * * *', 'minutes', [10, 30, 50]],
    ['5/15 * * * *', 'minutes', [5, 20, 35, 50]],
    ['0 0 * JAN,jul *', 'months', [1, 7]],
    ['0 0 * * 0,7', 'daysOfWeek', [0]],
    ['0 0 * * 5-7', 'daysOfWeek', [0, 5, 6]],
    ['0 0 * * Sat,sun', 'daysOfWeek', [0, 6]],
    ['0 0 */10 * *', 'daysOfMonth', [1, 11, 21, 31]],
    ['0 0 * * *', 'anyDayOfWeek', true],
    ['0 0 */1 * *', 'anyDayOfMonth', true],
    ['0 0 */2 * *', 'anyDayOfMonth', false],
  ];
  for (const [expression, field, expected] of cases)
    assert.deepEqual(requireCron(expression)[field], expected, expression);
});

test('macros expand and keep the expression as written', () => {
  const expansions: [string, string][] = [
    ['@hourly', '0 * * * *'],
    ['@daily', '0 0 * * *'],
    ['@midnight', '0 0 * * *'],
    ['@weekly', '0 0 * * 0'],
    ['@monthly', '0 0 1 * *'],
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    [' @Daily ', '0 0 * * *'],
  ];
  for (const [macro, fields] of expansions)
    assert.deepEqual(requireCron(macro), { ...requireCron(fields), expression: macro }, macro);
});

test('errors name the problem and its exact column', () => {
  const cases: [string, string, number][] = [
    ['', 'Cron expression is empty', 1],
    ['   ', 'Cron expression is empty', 1],
    [
      '* * * *',
      'Cron expression has 4 fields, expected 5 (minute hour day-of-month month day-of-week)',
      8,
    ],
    [
      '0 * * * * *',
      'Cron expression has 6 fields, expected 5 (minute hour day-of-month month day-of-week); seconds are not supported',
      11,
    ],
    ['60 * * * *', 'Minute 60 is out of range 0-59', 1],
    ['0 24 * * *', 'Hour 24 is out of range 0-23', 3],
    ['0 0 0 * *', 'Day-of-month 0 is out of range 1-31', 5],
    ['0 0 1 13 *', 'Month 13 is out of range 1-12', 7],
    ['0 0 * * 8', 'Day-of-week 8 is out of range 0-7', 9],
    ['*/0 * * * *', 'Step 0 in the minute field must be at least 1', 3],
    ['  */0 * * * *', 'Step 0 in the minute field must be at least 1', 5],
    ['*/x * * * *', 'Step "x" in the minute field is not a number', 3],
    [
      '0 0 * * mon-funday',
      'Unknown day-of-week name "funday"; use sun, mon, tue, wed, thu, fri, sat',
      13,
    ],
    [
      '0 0 * foo *',
      'Unknown month name "foo"; use jan, feb, mar, apr, may, jun, jul, aug, sep, oct, nov, dec',
      7,
    ],
    ['x * * * *', '"x" is not a number in the minute field', 1],
    ['1,,2 * * * *', 'Empty list item in the minute field', 3],
    ['1, * * * *', 'Empty list item in the minute field', 3],
    ['0 17-9 * * *', 'Range 17-9 in the hour field runs backwards', 3],
    ['0 5- * * *', 'Missing value in the hour field', 5],
    ['1/2/3 * * * *', 'Only one "/" is allowed in "1/2/3"', 4],
    ['1-2-3 * * * *', 'Only one "-" is allowed in "1-2-3"', 4],
    ['/5 * * * *', 'Missing value before "/" in the minute field', 1],
    ['0 0 30 2 *', 'Day-of-month 30 never occurs in month 2, so the schedule never runs', 5],
    ['0 0 31 4,6 *', 'Day-of-month 31 never occurs in month 4,6, so the schedule never runs', 5],
    [
      '@reboot',
      'Unknown cron macro "@reboot"; use @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly',
      1,
    ],
    ['@daily 5', 'Unexpected "5" after @daily', 8],
  ];
  for (const [expression, message, column] of cases)
    assert.deepEqual(
      parseCron(expression),
      { ok: false, message, column },
      JSON.stringify(expression),
    );
});

test('Feb 30 with a weekday is valid: either day field may match', () => {
  assert.equal(parseCron('0 0 30 2 mon').ok, true);
});

test('requireCron throws an InputError with the column', () => {
  assert.throws(() => requireCron('0 0 * * 8'), {
    name: 'InputError',
    code: 'SLUICE_CRON_INVALID',
    message: 'Day-of-week 8 is out of range 0-7 (column 9)',
  });
});
