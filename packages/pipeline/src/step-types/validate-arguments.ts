/**
 * Checks a typed step's `arguments` against its step type's schema and fills in defaults. Every
 * problem is returned at once, with its path under `arguments`, phrased for the person who wrote
 * the pipeline rather than in JSON Schema terms.
 * @module
 */
import { didYouMean } from '@sluice/errors';
import { formatPath, ISSUE_CODES } from '../pipeline-issue.js';
import type { IssuePath } from '../pipeline-issue.js';
import type { ArgumentSchema, SchemaType } from './argument-schema.js';
import { isPlainMap } from '../schema/validators.js';
import { cloneValue, deepEqual, describeValue, isRuntimeValue, setKey } from './values.js';

export interface ArgumentProblem {
  /** Relative to `arguments`; empty for the arguments as a whole. */
  path: IssuePath;
  message: string;
  code: string;
}

export interface ValidateArgumentsOptions {
  /** `account/name:version`, named in every message. */
  stepType: string;
}

export interface ValidateArgumentsResult {
  /** The arguments with defaults filled in. */
  value: Record<string, unknown>;
  problems: ArgumentProblem[];
}

export function validateArguments(
  schema: ArgumentSchema,
  value: unknown,
  options: ValidateArgumentsOptions,
): ValidateArgumentsResult {
  const stepType = options.stepType;
  const subject = (path: IssuePath) =>
    `${path.length === 0 ? 'The arguments' : `Argument "${formatPath(path)}"`} of step type "${stepType}"`;
  const ctx: Context = { stepType, subject, problems: [] };
  // `arguments:` with nothing after it is YAML null: no arguments, not a wrong type.
  const given = value === undefined || value === null ? {} : value;
  if (!isPlainMap(given)) {
    const message = `${subject([])} must be a map, got ${describeValue(given)}`;
    ctx.problems.push({ path: [], message, code: ISSUE_CODES.invalidValue });
    return { value: {}, problems: ctx.problems };
  }
  const checked = checkValue(schema, given, [], ctx);
  return { value: isPlainMap(checked) ? checked : {}, problems: ctx.problems };
}

export interface CheckAgainstSchemaOptions {
  /** Where the value is; the first element names it. */
  path: IssuePath;
  /** How a message names the value at a path, e.g. `The default of argument "X"`. */
  subject: (path: IssuePath) => string;
}

/** Checks a value that is not a typed step's arguments, such as a schema's own `default`. */
export function checkAgainstSchema(
  schema: ArgumentSchema,
  value: unknown,
  options: CheckAgainstSchemaOptions,
): ArgumentProblem[] {
  const ctx: Context = { stepType: '', subject: options.subject, problems: [] };
  checkValue(schema, value, options.path, ctx);
  return ctx.problems;
}

interface Context {
  stepType: string;
  subject: (path: IssuePath) => string;
  problems: ArgumentProblem[];
}

function checkValue(
  schema: ArgumentSchema,
  value: unknown,
  path: IssuePath,
  ctx: Context,
): unknown {
  if (isRuntimeValue(value)) return value;
  const fail = (expected: string, code: string = ISSUE_CODES.invalidValue) => {
    const message = `${ctx.subject(path)} must ${expected}, got ${describeValue(value)}`;
    ctx.problems.push({ path, message, code });
  };
  if (schema.type !== undefined && !schema.type.some((t) => hasType(value, t))) {
    fail(`be ${schema.type.map(typePhrase).join(' or ')}`);
    return value;
  }
  if (schema.enum !== undefined && !schema.enum.some((e) => deepEqual(e, value))) {
    fail(`be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if (schema.const !== undefined && !deepEqual(schema.const, value)) {
    fail(`be ${JSON.stringify(schema.const)}`);
  }
  if (typeof value === 'number') checkNumber(schema, value, fail);
  if (typeof value === 'string') checkString(schema, value, fail);
  if (Array.isArray(value)) return checkList(schema, value, path, ctx, fail);
  if (isPlainMap(value)) return checkMap(schema, value, path, ctx);
  return value;
}

type Fail = (expected: string) => void;

function checkNumber(schema: ArgumentSchema, value: number, fail: Fail): void {
  if (schema.minimum !== undefined && value < schema.minimum) fail(`be at least ${schema.minimum}`);
  if (schema.maximum !== undefined && value > schema.maximum) fail(`be at most ${schema.maximum}`);
  const { exclusiveMinimum: above, exclusiveMaximum: below } = schema;
  if (above !== undefined && value <= above) fail(`be greater than ${above}`);
  if (below !== undefined && value >= below) fail(`be less than ${below}`);
}

function checkString(schema: ArgumentSchema, value: string, fail: Fail): void {
  // Characters as people count them: an emoji is one, not two UTF-16 units.
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength) {
    fail(`be at least ${plural(schema.minLength, 'character')} long`);
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    fail(`be at most ${plural(schema.maxLength, 'character')} long`);
  }
  if (schema.pattern !== undefined && !schema.pattern.test(value)) {
    fail(`match /${schema.pattern.source}/`);
  }
}

function checkList(
  schema: ArgumentSchema,
  value: unknown[],
  path: IssuePath,
  ctx: Context,
  fail: Fail,
): unknown[] {
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    fail(`have at least ${plural(schema.minItems, 'item')}`);
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    fail(`have at most ${plural(schema.maxItems, 'item')}`);
  }
  const items = schema.items;
  return items === undefined ? value : value.map((v, i) => checkValue(items, v, [...path, i], ctx));
}

function checkMap(
  schema: ArgumentSchema,
  value: Record<string, unknown>,
  path: IssuePath,
  ctx: Context,
): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const out = Object.fromEntries(Object.entries(value));
  for (const [name, property] of Object.entries(properties)) {
    if (!Object.hasOwn(out, name) && property.default !== undefined) {
      setKey(out, name, cloneValue(property.default));
    }
  }
  for (const name of schema.required ?? []) {
    if (Object.hasOwn(out, name)) continue;
    const message =
      path.length === 0
        ? `Step type "${ctx.stepType}" requires argument "${name}"`
        : `${ctx.subject(path)} must have the field "${name}"`;
    ctx.problems.push({ path, message, code: ISSUE_CODES.missingField });
  }
  for (const [name, item] of Object.entries(out)) {
    const property = properties[name];
    if (Object.hasOwn(properties, name) && property !== undefined) {
      setKey(out, name, checkValue(property, item, [...path, name], ctx));
    } else if (schema.additionalProperties === false) {
      reportUnknown(name, Object.keys(properties), [...path, name], ctx);
    } else if (isPlainMap(schema.additionalProperties)) {
      setKey(out, name, checkValue(schema.additionalProperties, item, [...path, name], ctx));
    }
  }
  return out;
}

function reportUnknown(name: string, known: string[], path: IssuePath, ctx: Context): void {
  const owner = path.length === 1 ? `Step type "${ctx.stepType}"` : ctx.subject(path.slice(0, -1));
  const noun = path.length === 1 ? 'argument' : 'field';
  let hint = didYouMean(name, known);
  if (hint === '') {
    hint =
      known.length === 0
        ? `; it takes no ${noun}s`
        : `; it takes ${known.map((k) => `"${k}"`).join(', ')}`;
  }
  const message = `${owner} has no ${noun} "${name}"${hint}`;
  ctx.problems.push({ path, message, code: ISSUE_CODES.unknownField });
}

function hasType(value: unknown, type: SchemaType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isPlainMap(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
  }
}

function typePhrase(type: SchemaType): string {
  switch (type) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'integer':
      return 'a whole number';
    case 'boolean':
      return 'a boolean (true or false)';
    case 'object':
      return 'a map';
    case 'array':
      return 'a list';
    case 'null':
      return 'null';
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
