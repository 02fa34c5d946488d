/**
 * The building blocks of every entry point's environment schema: one zod schema per variable,
 * each with `.describe()` for people and `.meta()` saying what it accepts, its default as the docs
 * show it, the flag that overrides it and whether it is a secret. Values arrive as strings (an
 * empty one counts as unset) and leave typed, with the default filled in.
 * @module
 */
import { z } from 'zod';
import { InternalError } from '@sluice/errors';

/** What the docs and the error messages say about one variable, besides its description. */
export interface VariableMeta {
  /** What a valid value looks like: "an integer from 1 to 1000". */
  accepts: string;
  /** The default as the docs show it; absent when there is none. */
  default?: string;
  /** The flag that wins over the variable, without its dashes. */
  flag?: string;
  /** Tokens and keys: never echoed in an error. */
  secret?: boolean;
}

/** A variable's schema: a string or nothing in, `T` out. */
export type Variable<T> = z.ZodType<T, string | undefined>;

interface Common {
  description: string;
  flag?: string;
}

function tag<T>(schema: Variable<T>, common: Common, meta: VariableMeta): Variable<T> {
  const flag = common.flag === undefined ? {} : { flag: common.flag };
  return schema.describe(common.description).meta({ ...meta, ...flag });
}

const DECIMAL = /^-?\d+$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

export interface NumberOptions extends Common {
  min: number;
  max?: number;
  default?: number;
  /** What one unit is, for people: "seconds", "milliseconds". */
  unit?: string;
  /** Accept a fraction ("0.5"). */
  fraction?: boolean;
}

/** A whole number (or with `fraction`, any number) in a range. */
export function numberVar(options: NumberOptions & { default: number }): Variable<number>;
export function numberVar(
  options: NumberOptions & { default?: undefined },
): Variable<number | undefined>;
export function numberVar(options: NumberOptions): Variable<number | undefined> {
  const { min, max, unit, fraction = false } = options;
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  const what = fraction ? 'a number' : 'an integer';
  let value = z.number().min(min);
  if (max !== undefined) value = value.max(max);
  const text = z
    .string()
    .regex(fraction ? NUMBER : DECIMAL)
    .transform(Number)
    .pipe(value);
  const schema = options.default === undefined ? text.optional() : text.default(options.default);
  return tag(schema, options, {
    accepts: `${what} ${range}${unit === undefined ? '' : ` (${unit})`}`,
    ...(options.default === undefined ? {} : { default: `\`${options.default}\`` }),
  });
}

export interface TextOptions extends Common {
  /** The default as a value; `defaultText` when the docs should say something else. */
  default?: string;
  defaultText?: string;
  minLength?: number;
  secret?: boolean;
}

/** Any text; with `minLength`, at least that many characters. */
export function textVar(options: TextOptions & { default: string }): Variable<string>;
export function textVar(options: TextOptions): Variable<string | undefined>;
export function textVar(options: TextOptions): Variable<string | undefined> {
  const min = options.minLength ?? 1;
  const text = z.string().min(min);
  const schema = options.default === undefined ? text.optional() : text.default(options.default);
  const shown =
    options.defaultText ?? (options.default === undefined ? undefined : `\`${options.default}\``);
  return tag(schema, options, {
    accepts: min > 1 ? `text of at least ${min} characters` : 'any text',
    ...(shown === undefined ? {} : { default: shown }),
    ...(options.secret === true ? { secret: true } : {}),
  });
}

/** Required text: unset is a problem. */
export function requiredTextVar(options: Omit<TextOptions, 'default'>): Variable<string> {
  return tag(z.string().min(1), options, {
    accepts: 'any text',
    ...(options.secret === true ? { secret: true } : {}),
  });
}

/** An http:// or https:// URL; trailing slashes are dropped. */
export function urlVar(options: Common & { required: true }): Variable<string>;
export function urlVar(options: Common & { required?: false }): Variable<string | undefined>;
export function urlVar(options: Common & { required?: boolean }): Variable<string | undefined> {
  const url = z
    .string()
    .regex(/^https?:\/\/[^/\s]+\S*$/)
    .transform((value) => value.replace(/\/+$/, ''));
  return tag(options.required === true ? url : url.optional(), options, {
    accepts: 'an http(s) URL',
  });
}

/** On or off: 1/0, true/false, yes/no, on/off (any case). */
export function switchVar(options: Common): Variable<boolean> {
  const words = z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off']))
    .transform((value) => ['1', 'true', 'yes', 'on'].includes(value));
  return tag(words.default(false), options, {
    accepts: 'one of 1, 0, true, false, yes, no, on, off',
    default: 'off',
  });
}

/**
 * Docker's own rule for DOCKER_TLS_VERIFY: set to anything but `0` turns TLS on, as the docker
 * CLI reads it, so a variable copied from a docker set-up means the same here.
 */
export function presenceVar(options: Common): Variable<boolean> {
  const set = z.string().transform((value) => value !== '0');
  return tag(set.default(false), options, {
    accepts: 'any text; unset, empty or 0 is off',
    default: 'off',
  });
}

/** The meta of one variable's schema (see `tag`). */
export function variableMeta(schema: z.ZodType): VariableMeta & { description: string } {
  const meta = schema.meta() as (VariableMeta & { description?: string }) | undefined;
  if (meta?.accepts === undefined)
    throw new InternalError(
      'SLUICE_INTERNAL',
      'A configuration schema field was made without the helpers of variables.ts',
    );
  return { ...meta, description: meta.description ?? '' };
}
