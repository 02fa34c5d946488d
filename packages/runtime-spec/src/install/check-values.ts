/**
 * Checks runtime chart values against the chart's schema (`RUNTIME_VALUES_SCHEMA`), as Helm does
 * at install, with the keywords that schema uses and no others (a test fails when it gains one
 * this does not know). Every problem is returned, each with the dotted path `--set-value` uses;
 * an unknown key names the nearest known one. `partial` skips `required`: values given on top of
 * the chart's defaults need not repeat them.
 * @module
 */
import { closest } from '@sluice/errors';
import { RUNTIME_VALUES_SCHEMA } from './values-schema.js';
import type { JsonSchema } from './values-schema.js';

export interface ValuesIssue {
  /** `volumes.enabled`; empty for the values as a whole. */
  path: string;
  message: string;
}

/** The keywords `checkInstallValues` understands; any other in the schema is a test failure. */
export const CHECKED_KEYWORDS = [
  '$schema',
  'title',
  'description',
  'type',
  'properties',
  'additionalProperties',
  'required',
  'items',
  'enum',
  'anyOf',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
] as const;

export function checkInstallValues(
  values: unknown,
  options: { partial?: boolean; schema?: JsonSchema } = {},
): ValuesIssue[] {
  const issues: ValuesIssue[] = [];
  check(options.schema ?? RUNTIME_VALUES_SCHEMA, values, [], issues, options.partial === true);
  return issues;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const TYPES: Record<NonNullable<JsonSchema['type']>, (v: unknown) => boolean> = {
  object: isMap,
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  integer: Number.isInteger,
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
};

function check(
  schema: JsonSchema,
  value: unknown,
  path: string[],
  issues: ValuesIssue[],
  partial: boolean,
): void {
  const at = path.join('.');
  const issue = (message: string, where = at) => issues.push({ path: where, message });
  if (schema.enum !== undefined && !schema.enum.includes(value)) {
    issue(
      `must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${typeName(value)}`,
    );
    return;
  }
  if (schema.type !== undefined && !TYPES[schema.type](value)) {
    const wanted =
      schema.type === 'object' ? 'map' : schema.type === 'array' ? 'list' : schema.type;
    issue(`must be ${/^[aeiou]/.test(wanted) ? 'an' : 'a'} ${wanted}, got ${typeName(value)}`);
    return;
  }
  if (isMap(value)) checkMap(schema, value, path, issues, partial);
  if (Array.isArray(value) && schema.items !== undefined)
    value.forEach((item, i) => check(schema.items!, item, [...path, String(i)], issues, partial));
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      issue(`must be at least ${schema.minLength} character(s) long`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      issue(`must be at most ${schema.maxLength} characters long, got ${value.length}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value))
      issue(`${JSON.stringify(value)} does not match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum)
      issue(`must be at least ${schema.minimum}, got ${value}`);
    if (schema.maximum !== undefined && value > schema.maximum)
      issue(`must be at most ${schema.maximum}, got ${value}`);
  }
  if (schema.anyOf !== undefined) {
    const each = schema.anyOf.map((option) =>
      checkInstallValues(value, { partial, schema: option }),
    );
    if (each.every((found) => found.length > 0)) issue(noneMatched(schema.anyOf, value, each));
  }
}

/** Why a value passes none of `anyOf`: for patterns alone (the schema's case), which ones. */
function noneMatched(options: JsonSchema[], value: unknown, each: ValuesIssue[][]): string {
  const patterns = options.map((o) =>
    Object.keys(o).join() === 'pattern' ? o.pattern : undefined,
  );
  if (patterns.every((p) => p !== undefined))
    return `${JSON.stringify(value)} must ${patterns.map((p) => (p === '^$' ? 'be empty' : `match ${p}`)).join(' or ')}`;
  return each.map((found) => found.map((i) => i.message).join(', ')).join('; or ');
}

function checkMap(
  schema: JsonSchema,
  value: Record<string, unknown>,
  path: string[],
  issues: ValuesIssue[],
  partial: boolean,
): void {
  const known = Object.keys(schema.properties ?? {});
  if (!partial)
    for (const key of schema.required ?? [])
      if (!(key in value)) issues.push({ path: [...path, key].join('.'), message: 'is required' });
  for (const [key, child] of Object.entries(value)) {
    const where = [...path, key];
    const property = schema.properties?.[key];
    if (property !== undefined) check(property, child, where, issues, partial);
    else if (schema.additionalProperties === false) {
      const near = closest(key, known);
      issues.push({
        path: where.join('.'),
        message: `is not a value of the chart${near === undefined ? '' : `; did you mean ${[...path, near].join('.')}?`}`,
      });
    } else if (typeof schema.additionalProperties === 'object')
      check(schema.additionalProperties, child, where, issues, partial);
  }
}
