/**
 * One field of a 5-field cron expression: lists (`1,15`), ranges (`mon-fri`), steps (`*\/5`,
 * `10-50/20`, `5/15` meaning `5-max/15`) and three-letter month and weekday names. Errors carry
 * the 1-based column of the offending character in the whole expression.
 * @module
 */

export interface CronFieldSpec {
  /** `minute`, `hour`, `day-of-month`, `month`, `day-of-week`. */
  name: string;
  min: number;
  max: number;
  /** Names in value order, starting at `min`. */
  names?: readonly string[];
}

export type CronFieldResult =
  { ok: true; values: number[]; any: boolean } | { ok: false; message: string; column: number };

type Failure = { ok: false; message: string; column: number };
type Range = { from: number; to: number; step: number };

export const CRON_FIELDS: readonly CronFieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  // 0 and 7 are both Sunday; 7 is folded into 0 after parsing.
  { name: 'day-of-week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/** `text` starts at 1-based `column` of the expression. */
export function parseCronField(text: string, column: number, spec: CronFieldSpec): CronFieldResult {
  const values = new Set<number>();
  let offset = 0;
  const items = text.split(',');
  for (const item of items) {
    const range = parseItem(item, column + offset, spec);
    if ('ok' in range) return range;
    for (let v = range.from; v <= range.to; v += range.step) values.add(v);
    offset += item.length + 1;
  }
  const only = items.length === 1 ? items[0] : undefined;
  return {
    ok: true,
    values: [...values].sort((a, b) => a - b),
    any: only === '*' || only === '*/1',
  };
}

function parseItem(item: string, column: number, spec: CronFieldSpec): Range | Failure {
  if (item === '') return fail(`Empty list item in the ${spec.name} field`, column);
  const [base = '', stepText, extra] = item.split('/');
  if (extra !== undefined)
    return fail(
      `Only one "/" is allowed in "${item}"`,
      column + base.length + 1 + (stepText ?? '').length,
    );
  let step = 1;
  if (stepText !== undefined) {
    const stepColumn = column + base.length + 1;
    if (!/^\d+$/.test(stepText))
      return fail(`Step "${stepText}" in the ${spec.name} field is not a number`, stepColumn);
    step = Number(stepText);
    if (step < 1) return fail(`Step 0 in the ${spec.name} field must be at least 1`, stepColumn);
  }
  const range = parseBase(base, column, spec, stepText !== undefined);
  return 'ok' in range ? range : { ...range, step };
}

function parseBase(
  base: string,
  column: number,
  spec: CronFieldSpec,
  stepped: boolean,
): Omit<Range, 'step'> | Failure {
  if (base === '*') return { from: spec.min, to: spec.max };
  if (base === '') return fail(`Missing value before "/" in the ${spec.name} field`, column);
  const [fromText = '', toText, extra] = base.split('-');
  if (extra !== undefined)
    return fail(
      `Only one "-" is allowed in "${base}"`,
      column + fromText.length + 1 + (toText ?? '').length,
    );
  const from = parseValue(fromText, column, spec);
  if (typeof from !== 'number') return from;
  // `5/15` is `5-max/15`, as in Vixie cron and most schedulers after it.
  if (toText === undefined) return { from, to: stepped ? spec.max : from };
  const to = parseValue(toText, column + fromText.length + 1, spec);
  if (typeof to !== 'number') return to;
  if (to < from) return fail(`Range ${base} in the ${spec.name} field runs backwards`, column);
  return { from, to };
}

function parseValue(text: string, column: number, spec: CronFieldSpec): number | Failure {
  let value: number;
  if (/^\d+$/.test(text)) {
    value = Number(text);
  } else if (/^[a-z]+$/i.test(text) && spec.names !== undefined) {
    const index = spec.names.indexOf(text.toLowerCase());
    if (index === -1)
      return fail(`Unknown ${spec.name} name "${text}"; use ${spec.names.join(', ')}`, column);
    value = spec.min + index;
  } else {
    const what = text === '' ? 'Missing value' : `"${text}" is not a number`;
    return fail(`${what} in the ${spec.name} field`, column);
  }
  if (value < spec.min || value > spec.max)
    return fail(
      `${capitalize(spec.name)} ${value} is out of range ${spec.min}-${spec.max}`,
      column,
    );
  return value;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function fail(message: string, column: number): Failure {
  return { ok: false, message, column };
}
