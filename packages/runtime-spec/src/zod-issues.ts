/**
 * Turns zod issues into runtime spec issues with messages for people: each unknown key at its
 * own path with a closest-name suggestion, the offending value named, and unions described by
 * the types they accept. A message our own schemas give that starts in lower case ("must be a
 * Kubernetes quantity…") is relative: the field name is put in front of it here.
 * @module
 */
import { z } from 'zod';
import { didYouMean } from '@sluice/errors';
import { leaf, typeName } from './describe-value.js';
import { formatRuntimeSpecPath, RUNTIME_SPEC_ISSUE_CODES } from './runtime-spec-issue.js';
import type { RuntimeSpecIssue, RuntimeSpecPath } from './runtime-spec-issue.js';

type ZodIssue = z.core.$ZodIssue;

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a map',
  record: 'a map',
  array: 'a list',
};

/** Converts every zod issue of a parse of `schema`; paths are prefixed with `prefix`. */
export function toRuntimeSpecIssues(
  issues: readonly ZodIssue[],
  schema: z.core.$ZodType,
  prefix: RuntimeSpecPath = [],
): RuntimeSpecIssue[] {
  return issues.flatMap((issue) => convert(issue, schema, prefix));
}

function convert(
  issue: ZodIssue,
  schema: z.core.$ZodType,
  prefix: RuntimeSpecPath,
): RuntimeSpecIssue[] {
  const path = [...prefix, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => unknownKey(key, path, schema));
  }
  if (issue.code === 'invalid_union') return unionIssues(issue, schema, path);
  if (issue.code === 'invalid_key') return keyIssues(issue, path);
  if (issue.code === 'invalid_type' && issue.input === undefined) return [missingField(path)];
  return [{ path, code: RUNTIME_SPEC_ISSUE_CODES.invalidValue, message: message(issue, path) }];
}

function message(issue: ZodIssue, path: RuntimeSpecPath): string {
  if (/^[a-z]/.test(issue.message)) return `${leaf(path)} ${issue.message}`;
  if (issue.code === 'custom') return issue.message;
  return `${leaf(path)} ${relativeMessage(issue)}`;
}

/** What the value must be, for the issue codes our schemas can produce. */
function relativeMessage(issue: ZodIssue): string {
  const got = `got ${typeName(issue.input)}`;
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${EXPECTED[issue.expected] ?? issue.expected}, ${got}`;
    case 'invalid_value': {
      const options = issue.values.map((v) => JSON.stringify(v));
      const hint =
        typeof issue.input === 'string' ? didYouMean(issue.input, issue.values.map(String)) : '';
      const what = options.length === 1 ? options[0] : `one of ${options.join(', ')}`;
      return `must be ${what}, ${got}${hint}`;
    }
    case 'too_small':
      return `must be ${bound(issue.origin, 'at least', issue.minimum, issue.inclusive)}, ${got}`;
    case 'too_big':
      return `must be ${bound(issue.origin, 'at most', issue.maximum, issue.inclusive)}, ${got}`;
    case 'invalid_format':
      return issue.format === 'starts_with' && 'prefix' in issue
        ? `must start with ${JSON.stringify(issue.prefix)}, ${got}`
        : `must be a valid ${issue.format}, ${got}`;
    case 'custom':
    case 'invalid_element':
    case 'invalid_key':
    case 'invalid_union':
    case 'not_multiple_of':
    case 'unrecognized_keys':
      return `is invalid (${issue.message}), ${got}`;
  }
}

function bound(origin: string, side: string, limit: number | bigint, inclusive = true): string {
  const value = Number(limit);
  if (origin === 'string') return `${side} ${value} character${value === 1 ? '' : 's'} long`;
  if (origin === 'array') return `${side} ${value} item${value === 1 ? '' : 's'} long`;
  if (inclusive) return `${side} ${value}`;
  return `${side === 'at least' ? 'more' : 'less'} than ${value}`;
}

function missingField(path: RuntimeSpecPath): RuntimeSpecIssue {
  const parent = path.slice(0, -1);
  const name = String(path[path.length - 1]);
  return {
    path,
    code: RUNTIME_SPEC_ISSUE_CODES.missingField,
    message: `Missing required field "${name}" in ${where(parent)}`,
  };
}

function unknownKey(key: string, path: RuntimeSpecPath, schema: z.core.$ZodType): RuntimeSpecIssue {
  const hint = didYouMean(key, knownKeys(schema, path));
  return {
    path: [...path, key],
    code: RUNTIME_SPEC_ISSUE_CODES.unknownField,
    message: `Unknown field "${key}" in ${where(path)}${hint}`,
  };
}

function where(path: RuntimeSpecPath): string {
  return path.length === 0 ? 'the runtime environment' : formatRuntimeSpecPath(path);
}

/** A union names the types it accepts; if one option matched the type, its own issues win. */
function unionIssues(
  issue: z.core.$ZodIssueInvalidUnion,
  schema: z.core.$ZodType,
  path: RuntimeSpecPath,
): RuntimeSpecIssue[] {
  const typeOnly = (branch: ZodIssue[]) =>
    branch.length === 1 && branch[0]?.code === 'invalid_type' && branch[0].path.length === 0;
  const matched = issue.errors.find((branch) => !typeOnly(branch));
  if (matched !== undefined) return toRuntimeSpecIssues(matched, schema, path);
  const expected = issue.errors.map((branch) => {
    const first = branch[0];
    const name = first?.code === 'invalid_type' ? first.expected : 'value';
    return name === 'boolean' ? 'a boolean' : (EXPECTED[name] ?? name);
  });
  const list =
    expected.length > 1
      ? `${expected.slice(0, -1).join(', ')} or ${expected[expected.length - 1] ?? ''}`
      : (expected[0] ?? 'valid');
  const message = `${leaf(path)} must be ${list}, got ${typeName(issue.input)}`;
  return [{ path, code: RUNTIME_SPEC_ISSUE_CODES.invalidValue, message }];
}

function keyIssues(issue: z.core.$ZodIssueInvalidKey, path: RuntimeSpecPath): RuntimeSpecIssue[] {
  const key = String(path[path.length - 1]);
  const map = leaf(path.slice(0, -1));
  return issue.issues.map((inner) => ({
    path,
    code: RUNTIME_SPEC_ISSUE_CODES.invalidValue,
    message: `Key ${JSON.stringify(key)} of ${map} ${
      /^[a-z]/.test(inner.message) ? inner.message : 'is not valid'
    }`,
  }));
}

/** The field names of the object schema at `path`, for suggestions. */
export function knownKeys(schema: z.core.$ZodType, path: RuntimeSpecPath): string[] {
  let current: z.core.$ZodType | undefined = unwrap(schema);
  for (const part of path) {
    current = current === undefined ? undefined : child(current, part);
  }
  return current instanceof z.core.$ZodObject ? Object.keys(current._zod.def.shape) : [];
}

function child(schema: z.core.$ZodType, part: string | number): z.core.$ZodType | undefined {
  if (schema instanceof z.core.$ZodObject) {
    const shape = schema._zod.def.shape;
    return Object.hasOwn(shape, part) ? unwrap(shape[part]) : undefined;
  }
  if (schema instanceof z.core.$ZodRecord) return unwrap(schema._zod.def.valueType);
  if (schema instanceof z.core.$ZodArray) return unwrap(schema._zod.def.element);
  return undefined;
}

/** Through optional, nullable, default and transform wrappers to the schema that checks. */
function unwrap(schema: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  let current = schema;
  for (let depth = 0; current !== undefined && depth < 20; depth++) {
    if (
      current instanceof z.core.$ZodOptional ||
      current instanceof z.core.$ZodNullable ||
      current instanceof z.core.$ZodDefault
    ) {
      current = current._zod.def.innerType;
    } else if (current instanceof z.core.$ZodPipe) {
      current = current._zod.def.in;
    } else {
      return current;
    }
  }
  return current;
}
