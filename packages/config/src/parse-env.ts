/**
 * Reads one entry point's variables out of an environment object in one pass that reports
 * every problem at once: each names its variable (and flag), says what the variable accepts and
 * quotes the value given, unless the variable is a secret. The caller passes the environment in
 * (and flag values under the variables' names), so this module does no I/O.
 * @module
 */
import type { z } from 'zod';
import { InputError } from '@sluice/errors';
import { variableMeta } from './variables.js';
import type { Variable } from './variables.js';

/** An environment: `process.env` at the entry point, a literal in tests. */
export type Env = Readonly<Record<string, string | undefined>>;

export type EnvShape = Record<string, Variable<unknown>>;

/** Each variable's value; one whose value was refused is undefined. */
export type EnvValues<S extends EnvShape> = { [K in keyof S]: z.output<S[K]> };

export interface ParsedEnv<S extends EnvShape> {
  values: EnvValues<S>;
  problems: string[];
}

/** `--flag (NAME)` when the variable has a flag, else `NAME`. */
export function variableLabel(shape: EnvShape, name: string): string {
  const schema = shape[name];
  const flag = schema === undefined ? undefined : variableMeta(schema).flag;
  return flag === undefined ? name : `--${flag} (${name})`;
}

/**
 * The values of `shape`'s variables in `env` (an empty value is unset). Until `problems` is
 * empty, a refused variable's value is undefined whatever its type says: check `problems` first.
 */
export function parseEnv<S extends EnvShape>(shape: S, env: Env): ParsedEnv<S> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const raw = env[name] === '' ? undefined : env[name];
    const result = schema.safeParse(raw);
    if (result.success) {
      values[name] = result.data;
      continue;
    }
    const meta = variableMeta(schema);
    const label = variableLabel(shape, name);
    if (raw === undefined) problems.push(`${label} is not set`);
    else if (meta.secret === true) problems.push(`${label} must be ${meta.accepts}`);
    else problems.push(`${label} must be ${meta.accepts}, got ${JSON.stringify(raw)}`);
  }
  return { values: values as EnvValues<S>, problems };
}

export interface ConfigErrorOptions {
  /** The error's code: `SLUICE_SERVER_CONFIG_INVALID`. */
  code: string;
  /** Whose configuration: "the server's". */
  whose: string;
  hint?: string;
}

/** The InputError listing every problem, one per line, that an entry point exits with. */
export function configError(problems: readonly string[], options: ConfigErrorOptions): InputError {
  const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
  return new InputError(
    options.code,
    `${upperFirst(options.whose)} configuration has ${count}:\n  - ${problems.join('\n  - ')}`,
    { details: { problems: [...problems] }, ...(options.hint ? { hint: options.hint } : {}) },
  );
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
