/**
 * Cron triggers: the 5-field syntax (minute hour day-of-month month day-of-week) plus the
 * `@hourly` … `@yearly` macros, parsed into the set of values each field allows. Times are UTC.
 *
 * Days follow the classic rule: when both day fields are restricted, a day matches if EITHER
 * matches (`0 0 1 * mon` runs on the 1st and on every Monday). A field counts as unrestricted
 * only when it is exactly `*` (or `*\/1`); Vixie cron also treats `*\/2` as unrestricted there,
 * which surprises people, so Sluice does not.
 * @module
 */
import { InputError } from '@sluice/errors';
import { CRON_FIELDS, parseCronField } from './cron-field.js';

export const CRON_INVALID = 'SLUICE_CRON_INVALID';

export interface CronSchedule {
  /** The expression as given. */
  expression: string;
  /** Sorted allowed values: minutes 0-59, hours 0-23, days 1-31, months 1-12, weekdays 0-6 (Sunday 0). */
  minutes: readonly number[];
  hours: readonly number[];
  daysOfMonth: readonly number[];
  months: readonly number[];
  daysOfWeek: readonly number[];
  /** The day-of-month field was `*`, so only the day-of-week field restricts days. */
  anyDayOfMonth: boolean;
  /** The day-of-week field was `*`, so only the day-of-month field restricts days. */
  anyDayOfWeek: boolean;
}

export type CronParseResult =
  { ok: true; schedule: CronSchedule } | { ok: false; message: string; column: number };

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const FIELD_LIST = 'minute hour day-of-month month day-of-week';
/** The longest month each month number can have (February in a leap year). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function parseCron(expression: string): CronParseResult {
  const tokens = [...expression.matchAll(/\S+/g)].map((m) => ({ text: m[0], column: m.index + 1 }));
  const first = tokens[0];
  if (first === undefined) return { ok: false, message: 'Cron expression is empty', column: 1 };
  if (first.text.startsWith('@')) return parseMacro(expression, tokens);
  if (tokens.length !== 5) {
    const column = tokens[5]?.column ?? expression.trimEnd().length + 1;
    const seconds = tokens.length === 6 ? '; seconds are not supported' : '';
    return {
      ok: false,
      message: `Cron expression has ${tokens.length} fields, expected 5 (${FIELD_LIST})${seconds}`,
      column,
    };
  }
  return parseFields(expression, tokens);
}

/** Like `parseCron`, for callers that want an InputError naming the column. */
export function requireCron(expression: string): CronSchedule {
  const result = parseCron(expression);
  if (result.ok) return result.schedule;
  throw new InputError(CRON_INVALID, `${result.message} (column ${result.column})`, {
    details: { expression, column: result.column },
  });
}

type Token = { text: string; column: number };

function parseMacro(expression: string, tokens: readonly Token[]): CronParseResult {
  const [macro, extra] = tokens as [Token, Token | undefined];
  const fields = MACROS[macro.text.toLowerCase()];
  if (fields === undefined) {
    const known = Object.keys(MACROS).join(', ');
    return {
      ok: false,
      message: `Unknown cron macro "${macro.text}"; use ${known}`,
      column: macro.column,
    };
  }
  if (extra !== undefined)
    return {
      ok: false,
      message: `Unexpected "${extra.text}" after ${macro.text}`,
      column: extra.column,
    };
  const parsed = parseCron(fields);
  return parsed.ok ? { ok: true, schedule: { ...parsed.schedule, expression } } : parsed;
}

type ParsedField = { values: number[]; any: boolean };

function parseFields(expression: string, tokens: readonly Token[]): CronParseResult {
  const fields: ParsedField[] = [];
  for (const [index, spec] of CRON_FIELDS.entries()) {
    const token = tokens[index] as Token;
    const field = parseCronField(token.text, token.column, spec);
    if (!field.ok) return field;
    fields.push(field);
  }
  const [minute, hour, dom, month, dow] = fields as [
    ParsedField,
    ParsedField,
    ParsedField,
    ParsedField,
    ParsedField,
  ];
  const schedule: CronSchedule = {
    expression,
    minutes: minute.values,
    hours: hour.values,
    daysOfMonth: dom.values,
    months: month.values,
    daysOfWeek: [...new Set(dow.values.map((d) => d % 7))].sort((a, b) => a - b),
    anyDayOfMonth: dom.any,
    anyDayOfWeek: dow.any,
  };
  const never = neverRuns(schedule);
  if (never !== undefined)
    return { ok: false, message: never, column: (tokens[2] as Token).column };
  return { ok: true, schedule };
}

/** `0 0 30 2 *` is valid field by field and never runs; say so instead of looping forever. */
function neverRuns(schedule: CronSchedule): string | undefined {
  if (schedule.anyDayOfMonth || !schedule.anyDayOfWeek) return undefined;
  const firstDay = schedule.daysOfMonth[0] ?? 1;
  if (schedule.months.some((m) => firstDay <= (MONTH_DAYS[m - 1] ?? 31))) return undefined;
  return `Day-of-month ${firstDay} never occurs in month ${schedule.months.join(',')}, so the schedule never runs`;
}
