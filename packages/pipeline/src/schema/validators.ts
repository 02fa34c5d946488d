/**
 * A small schema language for the pipeline format: every check reports into a context with
 * the field path, so one pass finds every problem. Unknown keys get a closest-name suggestion;
 * fields that are valid Codefresh but not yet run by Sluice are reported as unsupported by name.
 * @module
 */
import { didYouMean } from '../suggest.js';
import { ISSUE_CODES } from '../pipeline-issue.js';
import type { IssuePath, IssueSeverity } from '../pipeline-issue.js';

export interface ReportOptions {
  code?: string;
  at?: 'key' | 'value';
  severity?: IssueSeverity;
}

export interface SchemaContext {
  report(path: IssuePath, message: string, options?: ReportOptions): void;
}

export interface Schema {
  /** For messages: "a string", "a list of strings". */
  readonly describe: string;
  check(value: unknown, path: IssuePath, ctx: SchemaContext): void;
}

export interface FieldSpec {
  schema: Schema;
  required?: boolean;
  /** Set when the field is valid in codefresh.yml but Sluice does not run it yet. */
  unsupported?: boolean;
}

export type Fields = Record<string, FieldSpec | Schema>;

/** A scalar as text; maps and lists (already rejected by validation) as JSON. */
export function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `the string "${truncate(value)}"`;
  return `${typeof value === 'number' ? 'the number' : 'the boolean'} ${scalarText(value)}`;
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function leaf(path: IssuePath): string {
  const last = path[path.length - 1];
  return typeof last === 'number' ? `Item ${last}` : `"${last ?? 'document'}"`;
}

function simple(describe: string, accepts: (value: unknown) => boolean): Schema {
  return {
    describe,
    check(value, path, ctx) {
      if (!accepts(value))
        ctx.report(path, `${leaf(path)} must be ${describe}, got ${typeName(value)}`);
    },
  };
}

/** Strings; numbers are accepted too, as YAML turns `tag: 1.0` into a number. */
export const str = simple('a string', (v) => typeof v === 'string' || typeof v === 'number');
export const num = simple(
  'a number',
  (v) => typeof v === 'number' || (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)),
);
export const bool = simple(
  'true or false',
  (v) => typeof v === 'boolean' || v === 'true' || v === 'false',
);
export const any: Schema = { describe: 'anything', check() {} };

export function oneOf(values: readonly string[]): Schema {
  const describe = `one of ${values.map((v) => `"${v}"`).join(', ')}`;
  return {
    describe,
    check(value, path, ctx) {
      if (typeof value === 'string' && values.includes(value)) return;
      const hint = typeof value === 'string' ? didYouMean(value, values) : '';
      ctx.report(path, `${leaf(path)} must be ${describe}, got ${typeName(value)}${hint}`);
    },
  };
}

export function list(item: Schema): Schema {
  return {
    describe: `a list of ${item.describe.replace(/^an? /, '')}s`,
    check(value, path, ctx) {
      if (!Array.isArray(value)) {
        ctx.report(path, `${leaf(path)} must be ${this.describe}, got ${typeName(value)}`);
        return;
      }
      value.forEach((entry, index) => item.check(entry, [...path, index], ctx));
    },
  };
}

/** A map with free keys (step names, variables), each value checked by `item`. */
export function record(
  item: Schema,
  describe = `a map of ${item.describe.replace(/^an? /, '')}s`,
): Schema {
  return {
    describe,
    check(value, path, ctx) {
      if (!isPlainMap(value)) {
        ctx.report(path, `${leaf(path)} must be ${describe}, got ${typeName(value)}`);
        return;
      }
      for (const [key, entry] of Object.entries(value)) item.check(entry, [...path, key], ctx);
    },
  };
}

/** The first option whose `accepts` matches checks the value; otherwise one combined message. */
export function union(
  options: readonly { when: (v: unknown) => boolean; schema: Schema }[],
): Schema {
  const describe = options.map((o) => o.schema.describe).join(' or ');
  return {
    describe,
    check(value, path, ctx) {
      const match = options.find((o) => o.when(value));
      if (match) match.schema.check(value, path, ctx);
      else ctx.report(path, `${leaf(path)} must be ${describe}, got ${typeName(value)}`);
    },
  };
}

export function object(name: string, fields: Fields, extraCheck?: Schema['check']): Schema {
  const specs = Object.entries(fields).map(([key, spec]) => [key, toSpec(spec)] as const);
  const known = new Map(specs);
  return {
    describe: `a map (${name})`,
    check(value, path, ctx) {
      if (!isPlainMap(value)) {
        ctx.report(path, `${leaf(path)} must be a map (${name}), got ${typeName(value)}`);
        return;
      }
      for (const [key, entry] of Object.entries(value)) {
        const spec = known.get(key);
        if (spec === undefined) {
          ctx.report(
            [...path, key],
            `Unknown field "${key}" in ${name}${didYouMean(key, known.keys())}`,
            {
              code: ISSUE_CODES.unknownField,
              at: 'key',
            },
          );
        } else if (spec.unsupported) {
          ctx.report([...path, key], `Field "${key}" of ${name} is not supported by Sluice yet`, {
            code: ISSUE_CODES.unsupported,
            at: 'key',
          });
        } else {
          spec.schema.check(entry, [...path, key], ctx);
        }
      }
      for (const [key, spec] of specs) {
        if (spec.required && !(key in value)) {
          ctx.report(path, `Missing required field "${key}" in ${name}`, {
            code: ISSUE_CODES.missingField,
            at: 'key',
          });
        }
      }
      extraCheck?.(value, path, ctx);
    },
  };
}

function toSpec(spec: FieldSpec | Schema): FieldSpec {
  return 'check' in spec ? { schema: spec } : spec;
}

export function isPlainMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const required = (schema: Schema): FieldSpec => ({ schema, required: true });
export const unsupported = (schema: Schema = any): FieldSpec => ({ schema, unsupported: true });
