/**
 * Field schemas shared by several step types (reference §5.2): the fields every step accepts,
 * and the command, environment, timeout, retry and condition shapes. Hooks are added where the
 * step schema is built, since a hook holds steps.
 * @module
 */
import { MAX_TIMEOUT_MS, parseDuration } from './duration.js';
import { postStepFields } from './post-step-schema.js';
import {
  any,
  bool,
  isPlainMap,
  leaf,
  list,
  numberIn,
  object,
  oneOf,
  record,
  required,
  str,
  text,
  typeName,
  union,
  notRun,
} from './validators.js';
import type { Fields, Schema } from './validators.js';

export const isString = (v: unknown) => typeof v === 'string' || typeof v === 'number';
export const isList = (v: unknown) => Array.isArray(v);
const isBoolish = (v: unknown) => typeof v === 'boolean' || v === 'true' || v === 'false';

/** `commands`, `cmd`, `entry_point`: a number there is a mistake, not a string YAML converted. */
export const commandText: Schema = union([
  { when: (v) => typeof v === 'string', schema: text },
  { when: isList, schema: list(str) },
]);

/** `KEY=value` entries, or a map of KEY: value (compose style). */
export function keyValueEntry(what: string): Schema {
  return {
    describe: 'a KEY=value string',
    check(value, path, ctx) {
      if (typeof value !== 'string' || !/^[^=\s]+=/.test(value)) {
        ctx.report(path, `${what} entry ${JSON.stringify(value)} must be written KEY=value`);
      }
    },
  };
}
const scalar = union(
  [{ when: (v) => isString(v) || typeof v === 'boolean' || v === null, schema: any }],
  'a string, number or boolean',
);
export const environment: Schema = union([
  { when: isList, schema: list(keyValueEntry('Environment')) },
  { when: isPlainMap, schema: record(scalar, 'a map of values') },
]);

/** A named condition; YAML makes `x: true` a boolean, which is not an expression string. */
const condition: Schema = {
  describe: 'an expression',
  check(value, path, ctx) {
    if (typeof value === 'string' || typeof value === 'number') return;
    const name = String(path[path.length - 1]);
    ctx.report(path, `Condition "${name}" must be an expression string, got ${typeName(value)}`);
  },
};

export const conditionModes = object('condition', {
  all: record(condition, 'a map of expressions'),
  any: record(condition, 'a map of expressions'),
});

/** `approved` and `denied` are the outcomes of a pending-approval step (success and denied). */
const STEP_OUTCOMES = ['success', 'failure', 'finished', 'skipped', 'approved', 'denied'] as const;
const outcome = oneOf(STEP_OUTCOMES);
const dependency = object('when.steps entry', {
  name: required(str),
  on: union([
    { when: (v) => typeof v === 'string', schema: outcome },
    { when: isList, schema: list(outcome) },
  ]),
});
const dependencies = list(dependency);

/** `when.steps`: a list (all of them), or `all:` / `any:` — one of the two, as the model holds one. */
const stepDependencies = union([
  { when: isList, schema: dependencies },
  {
    when: isPlainMap,
    schema: object('when.steps', { all: dependencies, any: dependencies }, (value, path, ctx) => {
      const map = value as Record<string, unknown>;
      if (map.all !== undefined && map.any !== undefined) {
        ctx.report([...path, 'any'], '"when.steps" takes "all" or "any", not both', { at: 'key' });
      } else if (map.all === undefined && map.any === undefined) {
        ctx.report(path, '"when.steps" must hold "all" or "any"');
      }
    }),
  },
]);

const when = object('when', {
  branch: object('when.branch', { only: list(str), ignore: list(str) }),
  condition: conditionModes,
  steps: stepDependencies,
});

const failFast = union(
  [
    { when: isBoolish, schema: bool },
    {
      when: isPlainMap,
      schema: object('fail_fast', {
        onFailure: notRun('the map form of fail_fast is not read', 'fails'),
        ignore: notRun('the map form of fail_fast is not read', 'fails'),
      }),
    },
  ],
  'true, false or a map',
);

export const timeout: Schema = {
  describe: 'a duration',
  check(value, path, ctx) {
    const parsed = parseDuration(value);
    if (!parsed.ok) ctx.report(path, `${leaf(path)} ${parsed.problem}, got ${typeName(value)}`);
  },
};

/** Codefresh documents 5–60 seconds but its validator asks only for a positive number. */
const positiveSeconds: Schema = {
  describe: 'a positive number of seconds',
  check(value, path, ctx) {
    const n = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    if (typeof n === 'number' && n > 0 && n <= MAX_TIMEOUT_MS / 1000) return;
    ctx.report(path, `${leaf(path)} must be ${this.describe}, got ${typeName(value)}`);
  },
};

export const retry = object('retry', {
  maxAttempts: numberIn(1, 10, true),
  delay: positiveSeconds,
  exponentialFactor: numberIn(1, 5),
});

/** The `arguments:` of a built-in step is folded into the step before checks; what is left is not a map. */
const leftoverArguments: Schema = {
  describe: 'a map',
  check(value, path, ctx) {
    ctx.report(path, `"arguments" must be a map of the step's fields, got ${typeName(value)}`);
  },
};

const NO_REGISTRY_CONTEXTS =
  'registries are logged in from the registry settings, not chosen per step';
const NO_METADATA = "only a step's on_success, on_fail and on_finish set annotations here";

const postStepOperations = object('post-step operations', postStepFields);

/** Fields every step type accepts, but `hooks`. */
export const common: Fields = {
  type: str,
  title: str,
  description: str,
  stage: str,
  working_directory: str,
  fail_fast: failFast,
  when,
  strict_fail_fast: bool,
  timeout,
  retry,
  on_success: postStepOperations,
  on_fail: postStepOperations,
  on_finish: postStepOperations,
  registry_context: notRun(NO_REGISTRY_CONTEXTS, 'ignored', str),
  registry_contexts: notRun(NO_REGISTRY_CONTEXTS, 'ignored', list(str)),
  metadata: notRun(NO_METADATA, 'ignored'),
  annotations: notRun(NO_METADATA, 'ignored'),
  arguments: leftoverArguments,
  docker_machine: notRun("steps run on the build's own Docker daemon", 'ignored'),
};
