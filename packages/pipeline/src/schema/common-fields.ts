/**
 * Field schemas shared by several step types (reference §5.2): the fields every step accepts,
 * and the command, environment, hook and condition shapes.
 * @module
 */
import {
  any,
  bool,
  isPlainMap,
  list,
  num,
  object,
  oneOf,
  record,
  str,
  text,
  typeName,
  union,
  unsupported,
} from './validators.js';
import type { Fields, Schema } from './validators.js';

export const isString = (v: unknown) => typeof v === 'string' || typeof v === 'number';
const isList = (v: unknown) => Array.isArray(v);
const isBoolish = (v: unknown) => typeof v === 'boolean' || v === 'true' || v === 'false';

/** `commands`, `cmd`, `entry_point`: a number there is a mistake, not a string YAML converted. */
export const commandText: Schema = union([
  { when: (v) => typeof v === 'string', schema: text },
  { when: isList, schema: list(str) },
]);

/** `KEY=value` entries, or a map of KEY: value (compose style). */
const envEntry: Schema = {
  describe: 'a KEY=value string',
  check(value, path, ctx) {
    if (typeof value !== 'string' || !/^[^=\s]+=/.test(value)) {
      ctx.report(path, `Environment entry ${JSON.stringify(value)} must be written KEY=value`);
    }
  },
};
const scalar = union(
  [{ when: (v) => isString(v) || typeof v === 'boolean' || v === null, schema: any }],
  'a string, number or boolean',
);
export const environment: Schema = union([
  { when: isList, schema: list(envEntry) },
  { when: isPlainMap, schema: record(scalar, 'a map of values') },
]);

const hookBody = object('hook', {
  exec: object('hook exec', { image: str, commands: commandText, environment, shell: str }),
  steps: record(any, 'a map of steps'),
  mode: oneOf(['sequential', 'parallel']),
  fail_fast: bool,
  metadata: any,
  annotations: any,
});
export const hooks = object('hooks', {
  on_elected: hookBody,
  on_success: hookBody,
  on_fail: hookBody,
  on_finish: hookBody,
});

/** A named condition; YAML makes `x: true` a boolean, which is not an expression string. */
const condition: Schema = {
  describe: 'an expression',
  check(value, path, ctx) {
    if (typeof value === 'string' || typeof value === 'number') return;
    const name = String(path[path.length - 1]);
    ctx.report(path, `Condition "${name}" must be an expression string, got ${typeName(value)}`);
  },
};

const when = object('when', {
  branch: object('when.branch', { only: list(str), ignore: list(str) }),
  condition: object('when.condition', {
    all: record(condition, 'a map of expressions'),
    any: record(condition, 'a map of expressions'),
  }),
  steps: unsupported(),
});

const failFast = union(
  [
    { when: isBoolish, schema: bool },
    {
      when: isPlainMap,
      schema: object('fail_fast', { onFailure: unsupported(), ignore: unsupported() }),
    },
  ],
  'true, false or a map',
);

/** Fields every step type accepts. */
export const common: Fields = {
  type: str,
  title: str,
  description: str,
  stage: str,
  working_directory: str,
  fail_fast: failFast,
  when,
  strict_fail_fast: unsupported(bool),
  timeout: unsupported(str),
  retry: unsupported(object('retry', { maxAttempts: num, delay: num, exponentialFactor: num })),
  on_success: unsupported(),
  on_fail: unsupported(),
  on_finish: unsupported(),
  hooks: unsupported(hooks),
  registry_context: unsupported(str),
  registry_contexts: unsupported(list(str)),
  metadata: unsupported(),
  annotations: unsupported(),
  arguments: unsupported(),
  docker_machine: unsupported(),
};
