/**
 * The JSON Schema subset a step type's `spec.arguments` may use, and the check that a schema is
 * written in it. A keyword that would change what is accepted but that Sluice does not implement
 * (`oneOf`, `$ref`, ...) is an error rather than silently ignored: arguments the author meant to
 * reject would otherwise get through.
 * @module
 */
import { didYouMean } from '@sluice/errors';
import { compileLinearRegex } from '../linear-regex.js';
import type { LinearRegex } from '../linear-regex.js';
import { ISSUE_CODES } from '../pipeline-issue.js';
import type { IssuePath } from '../pipeline-issue.js';
import { isPlainMap } from '../schema/validators.js';
import { describeValue, setKey } from './values.js';

const SCHEMA_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

export interface ArgumentSchema {
  type?: SchemaType[];
  properties?: Record<string, ArgumentSchema>;
  required?: string[];
  /** Undefined means allowed, as in JSON Schema. */
  additionalProperties?: boolean | ArgumentSchema;
  enum?: unknown[];
  const?: unknown;
  /** Filled in when the argument is absent. */
  default?: unknown;
  items?: ArgumentSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  /** Matched in linear time: a step type's author writes it, a pipeline's author the value. */
  pattern?: LinearRegex;
  description?: string;
}

/** Reports a problem at a path inside the schema. */
export type SchemaReport = (path: IssuePath, message: string, code: string) => void;

const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;
const COUNT_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems'] as const;
const SUPPORTED = [
  'type',
  'properties',
  'required',
  'additionalProperties',
  'enum',
  'const',
  'default',
  'items',
  'pattern',
  'description',
  ...NUMBER_KEYWORDS,
  ...COUNT_KEYWORDS,
];
/** Annotations: they never change what is accepted, so they are allowed and ignored. */
const IGNORED = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'examples',
  'format',
  'deprecated',
  'readOnly',
  'writeOnly',
  // Codefresh marketplace schemas carry these two at the top level.
  'name',
  'patterns',
]);
const UNSUPPORTED = new Set([
  '$ref',
  '$defs',
  'definitions',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'multipleOf',
  'uniqueItems',
  'contains',
  'minProperties',
  'maxProperties',
  'patternProperties',
  'propertyNames',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'prefixItems',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
]);

/** The schema as Sluice uses it, or undefined after reporting why it cannot be used. */
export function checkArgumentSchema(
  value: unknown,
  report: SchemaReport,
): ArgumentSchema | undefined {
  let failed = false;
  const failing: SchemaReport = (path, message, code) => {
    failed = true;
    report(path, message, code);
  };
  const schema = checkSchema(value, [], failing);
  if (schema !== undefined && !(schema.type === undefined || schema.type.includes('object'))) {
    failing(
      ['type'],
      `The arguments schema must describe an object, got type ${schema.type.join(', ')}`,
      ISSUE_CODES.invalidValue,
    );
  }
  return failed ? undefined : schema;
}

function checkSchema(
  value: unknown,
  path: IssuePath,
  report: SchemaReport,
): ArgumentSchema | undefined {
  if (!isPlainMap(value)) {
    report(path, `A schema must be a map, got ${describeValue(value)}`, ISSUE_CODES.invalidValue);
    return undefined;
  }
  const schema: ArgumentSchema = {};
  for (const [key, field] of Object.entries(value)) {
    const at = [...path, key];
    if (IGNORED.has(key)) continue;
    if (UNSUPPORTED.has(key)) {
      const message = `Schema keyword "${key}" is not supported by Sluice; use only ${SUPPORTED.join(', ')}`;
      report(at, message, ISSUE_CODES.unsupported);
      continue;
    }
    if (!SUPPORTED.includes(key)) {
      report(
        at,
        `Unknown schema keyword "${key}"${didYouMean(key, SUPPORTED)}`,
        ISSUE_CODES.unknownField,
      );
      continue;
    }
    checkKeyword(schema, key, field, at, report);
  }
  return schema;
}

function checkKeyword(
  schema: ArgumentSchema,
  key: string,
  field: unknown,
  at: IssuePath,
  report: SchemaReport,
): void {
  const bad = (expected: string) =>
    report(
      at,
      `Schema keyword "${key}" must be ${expected}, got ${describeValue(field)}`,
      ISSUE_CODES.invalidValue,
    );
  switch (key) {
    case 'type':
      schema.type = checkType(field, at, report);
      return;
    case 'properties':
      if (!isPlainMap(field)) return bad('a map of argument names to schemas');
      schema.properties = {};
      for (const [name, sub] of Object.entries(field)) {
        const checked = checkSchema(sub, [...at, name], report);
        if (checked !== undefined) setKey(schema.properties, name, checked);
      }
      return;
    case 'required':
      if (!Array.isArray(field) || !field.every((f) => typeof f === 'string')) {
        return bad('a list of argument names');
      }
      schema.required = field;
      return;
    case 'additionalProperties':
      if (typeof field === 'boolean') schema.additionalProperties = field;
      else schema.additionalProperties = checkSchema(field, at, report);
      return;
    case 'enum':
      if (!Array.isArray(field) || field.length === 0) return bad('a non-empty list of values');
      schema.enum = field;
      return;
    case 'const':
      schema.const = field;
      return;
    case 'default':
      schema.default = field;
      return;
    case 'items':
      // The tuple form (a list of schemas) is draft-07 only and rare in step types.
      schema.items = checkSchema(field, at, report);
      return;
    case 'pattern':
      if (typeof field !== 'string') return bad('a regular expression string');
      schema.pattern = checkPattern(field, at, report);
      return;
    case 'description':
      if (typeof field !== 'string') return bad('a string');
      schema.description = field;
      return;
    default:
      checkNumberKeyword(schema, key, field, bad);
  }
}

function checkNumberKeyword(
  schema: ArgumentSchema,
  key: string,
  field: unknown,
  bad: (expected: string) => void,
): void {
  const number = typeof field === 'number' && Number.isFinite(field);
  for (const k of NUMBER_KEYWORDS) {
    if (k !== key) continue;
    if (!number) return bad('a number');
    schema[k] = field;
    return;
  }
  for (const k of COUNT_KEYWORDS) {
    if (k !== key) continue;
    if (!number || !Number.isInteger(field) || field < 0) return bad('a whole number, 0 or more');
    schema[k] = field;
    return;
  }
}

function checkPattern(field: string, at: IssuePath, report: SchemaReport): LinearRegex | undefined {
  const compiled = compileLinearRegex(field, 'u');
  if (compiled.ok) return compiled.regex;
  report(
    at,
    `Schema "pattern" is not a valid regular expression: ${compiled.reason}`,
    ISSUE_CODES.invalidValue,
  );
  return undefined;
}

function checkType(field: unknown, at: IssuePath, report: SchemaReport): SchemaType[] | undefined {
  const list = Array.isArray(field) ? field : [field];
  const types: SchemaType[] = [];
  list.forEach((item, i) => {
    const where = Array.isArray(field) ? [...at, i] : at;
    const known = SCHEMA_TYPES.find((t) => t === item);
    if (known !== undefined) types.push(known);
    else {
      const hint = typeof item === 'string' ? didYouMean(item, SCHEMA_TYPES) : '';
      const message = `Schema type must be one of ${SCHEMA_TYPES.join(', ')}, got ${describeValue(item)}${hint}`;
      report(where, message, ISSUE_CODES.invalidValue);
    }
  });
  return types.length > 0 ? types : undefined;
}
