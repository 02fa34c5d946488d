/**
 * A small schema language for the pipeline format: every check reports into a context with
 * the field path, so one pass finds every problem. Unknown keys get a closest-name suggestion;
 * fields that are valid Codefresh but not run by Sluice are accepted and named (a warning here, and
 * again by the engine before any step starts), never ignored silently.
 * @module
 */
import { didYouMean } from '@sluice/errors';
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
  /** Set when the field is valid in codefresh.yml but Sluice does not run it. */
  notRun?: NotRun;
}

/**
 * Why Sluice does not run a construct Codefresh accepts, and what the build does about it:
 * `fails` (the build stops before any step starts, naming it: running without it would be
 * wrong) or `ignored` (the build runs without it, saying so).
 */
export interface NotRun {
  why: string;
  effect: 'fails' | 'ignored';
}

export type Fields = Record<string, FieldSpec | Schema>;

/** A scalar as text; maps and lists (already rejected by validation) as JSON. */
export function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

/** The value as a message names it: `the string "zsh"`, `the number 5`, `a list`. */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  // What the !!set, !!omap, !!binary and !!timestamp tags produce.
  if (value instanceof Set) return 'a !!set';
  if (value instanceof Map) return 'an !!omap';
  if (value instanceof Uint8Array) return 'binary data';
  if (value instanceof Date) return 'a date';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `the string ${JSON.stringify(truncate(value))}`;
  if (typeof value === 'number') return `the number ${scalarText(value)}`;
  if (typeof value === 'boolean') return `the boolean ${scalarText(value)}`;
  return `a ${typeof value}`;
}

/** At most 40 characters: a value quoted in a message stays one short line. */
export function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** How a message names the field at `path`: `"image"`, `Item 2 of "commands"`. */
export function leaf(path: IssuePath): string {
  const last = path[path.length - 1];
  if (typeof last !== 'number') return `"${last ?? 'document'}"`;
  const parent = path[path.length - 2];
  return parent === undefined ? `Item ${last}` : `Item ${last} of "${parent}"`;
}

function simple(describe: string, accepts: (value: unknown) => boolean): Schema {
  return {
    describe,
    check(value, path, ctx) {
      if (accepts(value)) return;
      ctx.report(
        path,
        `${leaf(path)} must be ${describe}, got ${typeName(value)}${colonHint(value)}`,
      );
    },
  };
}

/** `- echo "a: b"` is read as a one-entry map: the commonest YAML surprise in a pipeline. */
function colonHint(value: unknown): string {
  return isPlainMap(value) && Object.keys(value).length === 1
    ? '; quote text that holds ": " or write it as a block scalar (|-)'
    : '';
}

/** Strings; numbers are accepted too, as YAML turns `tag: 1.0` into a number. */
export const str = simple('a string', (v) => typeof v === 'string' || typeof v === 'number');
/** Strings only, for text where a number is certainly a mistake (`commands: 5`). */
export const text = simple('a string', (v) => typeof v === 'string');
export const num = simple(
  'a number',
  (v) => typeof v === 'number' || (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)),
);
export const bool = simple(
  'true or false',
  (v) => typeof v === 'boolean' || v === 'true' || v === 'false',
);
/** A number (or numeric string) from `min` to `max`; `whole` refuses fractions. */
export function numberIn(min: number, max: number, whole = false): Schema {
  const describe = `${whole ? 'a whole number' : 'a number'} from ${min} to ${max}`;
  return {
    describe,
    check(value, path, ctx) {
      const n = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      const fits = typeof n === 'number' && n >= min && n <= max && (!whole || Number.isInteger(n));
      if (!fits) ctx.report(path, `${leaf(path)} must be ${describe}, got ${typeName(value)}`);
    },
  };
}

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
  describe = options.map((o) => o.schema.describe).join(' or '),
): Schema {
  return {
    describe,
    check(value, path, ctx) {
      const match = options.find((o) => o.when(value));
      if (match) match.schema.check(value, path, ctx);
      else ctx.report(path, `${leaf(path)} must be ${describe}, got ${typeName(value)}`);
    },
  };
}

/**
 * A map with known fields. `name` says what it is in messages ("freestyle step"); for a step
 * the step's own name is added from the path.
 */
export function object(name: string, fields: Fields, extraCheck?: Schema['check']): Schema {
  return mapOf({ name, fields, extraCheck, unknownKeys: 'error' });
}

/**
 * A map whose unknown keys Codefresh ignores (freestyle and composition steps): each is a
 * warning with the closest known name, and the rest is checked as usual.
 */
export function lenientObject(name: string, fields: Fields): Schema {
  return mapOf({ name, fields, unknownKeys: 'warning' });
}

interface MapOptions {
  name: string;
  fields: Fields;
  extraCheck?: Schema['check'];
  unknownKeys: IssueSeverity;
}

function mapOf(options: MapOptions): Schema {
  const { name, extraCheck } = options;
  const known = new Map(
    Object.entries(options.fields).map(([key, spec]) => [key, toSpec(spec)] as const),
  );
  return {
    describe: 'a map',
    check(value, path, ctx) {
      if (!isPlainMap(value)) {
        ctx.report(path, `${leaf(path)} must be a map, got ${typeName(value)}`);
        return;
      }
      const what = name.endsWith(' step') ? `${name} "${String(path[path.length - 1])}"` : name;
      for (const [key, entry] of Object.entries(value)) {
        const spec = known.get(key);
        if (spec === undefined) reportUnknown(known, key, [...path, key], what, options, ctx);
        else checkField(spec, entry, [...path, key], what, ctx);
      }
      for (const [key, spec] of known) {
        if (spec.required && !Object.hasOwn(value, key)) {
          ctx.report(path, `Missing required field "${key}" in ${what}`, {
            code: ISSUE_CODES.missingField,
            at: 'key',
          });
        }
      }
      extraCheck?.(value, path, ctx);
    },
  };
}

/** Names people write for a field that the edit distance would not find. */
const ALSO_KNOWN_AS: Record<string, string> = { env: 'environment' };

function reportUnknown(
  known: Map<string, FieldSpec>,
  key: string,
  path: IssuePath,
  what: string,
  options: MapOptions,
  ctx: SchemaContext,
): void {
  const alias = ALSO_KNOWN_AS[key];
  const hint =
    alias !== undefined && known.has(alias)
      ? `; did you mean "${alias}"?`
      : didYouMean(key, known.keys());
  const ignored =
    options.unknownKeys === 'warning'
      ? ' (Codefresh ignores unknown fields here, and so does Sluice)'
      : '';
  ctx.report(path, `Unknown field "${key}" in ${what}${ignored}${hint}`, {
    code: ISSUE_CODES.unknownField,
    severity: options.unknownKeys,
    at: 'key',
  });
}

function checkField(
  spec: FieldSpec,
  entry: unknown,
  path: IssuePath,
  what: string,
  ctx: SchemaContext,
): void {
  spec.schema.check(entry, path, ctx);
  if (spec.notRun) {
    const construct = `Field "${String(path[path.length - 1])}" of ${what}`;
    reportNotRun(ctx, { construct, ...spec.notRun, path });
  }
}

/** `Field "x" of freestyle step "a" is not run by Sluice (why); the build …`: a warning. */
export interface NotRunReport extends NotRun {
  /** `Field "x" of freestyle step "a"`, `Step type "deploy"`. */
  construct: string;
  path: IssuePath;
  /** Where the warning points: the key (default) or its value. */
  at?: 'key' | 'value';
}

export function reportNotRun(ctx: SchemaContext, report: NotRunReport): void {
  const outcome =
    report.effect === 'fails'
      ? 'the build stops before its first step'
      : 'the build runs without it';
  ctx.report(report.path, `${report.construct} is not run by Sluice: ${report.why}; ${outcome}`, {
    code: report.effect === 'fails' ? ISSUE_CODES.unsupported : ISSUE_CODES.ignored,
    severity: 'warning',
    at: report.at ?? 'key',
  });
}

function toSpec(spec: FieldSpec | Schema): FieldSpec {
  return 'check' in spec ? { schema: spec } : spec;
}

/** A YAML map; not a list, and not the Set, Map, Date or bytes that `!!set` and friends make. */
export function isPlainMap(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export const required = (schema: Schema): FieldSpec => ({ schema, required: true });
/** Valid Codefresh that Sluice does not run: accepted, named where it is written and at run time. */
export function notRun(why: string, effect: NotRun['effect'], schema: Schema = any): FieldSpec {
  return { schema, notRun: { why, effect } };
}
