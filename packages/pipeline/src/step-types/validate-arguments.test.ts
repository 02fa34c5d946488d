import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkArgumentSchema } from './argument-schema.js';
import type { ArgumentSchema } from './argument-schema.js';
import { validateArguments } from './validate-arguments.js';

function schemaOf(value: unknown): ArgumentSchema {
  const problems: string[] = [];
  const schema = checkArgumentSchema(value, (path, message) =>
    problems.push(`${path.join('.')}: ${message}`),
  );
  assert.deepEqual(problems, []);
  assert.ok(schema !== undefined);
  return schema;
}

function problemsOf(schema: ArgumentSchema, args: unknown): string[] {
  const result = validateArguments(schema, args, { stepType: 'sluice/git-commit' });
  return result.problems.map((p) => `${p.path.join('.')}: ${p.message}`);
}

const commit = schemaOf({
  type: 'object',
  additionalProperties: false,
  required: ['MESSAGE'],
  properties: {
    MESSAGE: { type: 'string', minLength: 1 },
    BRANCH: { type: 'string', default: 'main', pattern: '^[a-z/-]+$' },
    DEPTH: { type: 'integer', minimum: 1, maximum: 10 },
    RATIO: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    MODE: { enum: ['fast', 'safe'] },
    TAGS: { type: 'array', items: { type: 'string', maxLength: 3 }, maxItems: 2 },
    LIMITS: {
      type: 'object',
      additionalProperties: false,
      required: ['cpu'],
      properties: { cpu: { type: 'string' }, memory: { type: ['string', 'null'] } },
    },
    FORCE: { type: 'boolean', default: false },
  },
});

test('a good argument set passes and gets its defaults', () => {
  const result = validateArguments(commit, { MESSAGE: 'fix: x', DEPTH: 3 }, { stepType: 't' });
  assert.deepEqual(result.problems, []);
  assert.deepEqual(result.value, { MESSAGE: 'fix: x', DEPTH: 3, BRANCH: 'main', FORCE: false });
});

test('a wrong type names the argument, the step type, what was expected and what was given', () => {
  assert.deepEqual(problemsOf(commit, { MESSAGE: 42 }), [
    'MESSAGE: Argument "MESSAGE" of step type "sluice/git-commit" must be a string, got a number (42)',
  ]);
  assert.deepEqual(problemsOf(commit, { MESSAGE: 'm', DEPTH: 2.5, FORCE: 'yes' }), [
    'DEPTH: Argument "DEPTH" of step type "sluice/git-commit" must be a whole number, got a number (2.5)',
    'FORCE: Argument "FORCE" of step type "sluice/git-commit" must be a boolean (true or false), got a string ("yes")',
  ]);
});

test('a missing required argument is named; an unknown one gets a suggestion', () => {
  assert.deepEqual(problemsOf(commit, { MESAGE: 'x' }), [
    ': Step type "sluice/git-commit" requires argument "MESSAGE"',
    'MESAGE: Step type "sluice/git-commit" has no argument "MESAGE"; did you mean "MESSAGE"?',
  ]);
  const none = schemaOf({ type: 'object', additionalProperties: false });
  assert.deepEqual(problemsOf(none, { X: 1 }), [
    'X: Step type "sluice/git-commit" has no argument "X"; it takes no arguments',
  ]);
});

test('ranges, lengths, patterns, enums and lists are checked', () => {
  const problems = problemsOf(commit, {
    MESSAGE: '',
    BRANCH: 'Main Branch',
    DEPTH: 11,
    RATIO: 1,
    MODE: 'slow',
    TAGS: ['a', 'long', 'c'],
  });
  assert.deepEqual(problems, [
    'MESSAGE: Argument "MESSAGE" of step type "sluice/git-commit" must be at least 1 character long, got a string ("")',
    'BRANCH: Argument "BRANCH" of step type "sluice/git-commit" must match /^[a-z/-]+$/, got a string ("Main Branch")',
    'DEPTH: Argument "DEPTH" of step type "sluice/git-commit" must be at most 10, got a number (11)',
    'RATIO: Argument "RATIO" of step type "sluice/git-commit" must be less than 1, got a number (1)',
    'MODE: Argument "MODE" of step type "sluice/git-commit" must be one of "fast", "safe", got a string ("slow")',
    'TAGS: Argument "TAGS" of step type "sluice/git-commit" must have at most 2 items, got a list',
    'TAGS.1: Argument "TAGS[1]" of step type "sluice/git-commit" must be at most 3 characters long, got a string ("long")',
  ]);
});

test('nested maps are checked field by field', () => {
  assert.deepEqual(problemsOf(commit, { MESSAGE: 'm', LIMITS: { memory: null, cpus: 1 } }), [
    'LIMITS: Argument "LIMITS" of step type "sluice/git-commit" must have the field "cpu"',
    'LIMITS.cpus: Argument "LIMITS" of step type "sluice/git-commit" has no field "cpus"; did you mean "cpu"?',
  ]);
});

test('${{VAR}} values are only known at run time: accepted for any type and left as they are', () => {
  const args = {
    MESSAGE: '${{CF_COMMIT_MESSAGE}}',
    DEPTH: '${{DEPTH}}',
    BRANCH: 'x-${{CF_BRANCH}}',
  };
  const result = validateArguments(commit, args, { stepType: 't' });
  assert.deepEqual(result.problems, []);
  assert.equal(result.value.DEPTH, '${{DEPTH}}');
  assert.equal(result.value.BRANCH, 'x-${{CF_BRANCH}}');
});

test('arguments that are not a map are one problem; empty arguments are none', () => {
  assert.deepEqual(problemsOf(commit, ['MESSAGE']), [
    ': The arguments of step type "sluice/git-commit" must be a map, got a list',
  ]);
  const optional = schemaOf({
    type: 'object',
    properties: { A: { type: 'string', default: 'a' } },
  });
  assert.deepEqual(validateArguments(optional, null, { stepType: 't' }), {
    value: { A: 'a' },
    problems: [],
  });
});

test('defaults are copies: expanding twice never shares a value', () => {
  const schema = schemaOf({ properties: { L: { type: 'array', default: [1] } } });
  const first = validateArguments(schema, {}, { stepType: 't' }).value;
  (first.L as number[]).push(2);
  assert.deepEqual(validateArguments(schema, {}, { stepType: 't' }).value.L, [1]);
});

test('a __proto__ argument is an ordinary (unknown) key, never a prototype', () => {
  const args = JSON.parse('{"MESSAGE": "m", "__proto__": {"polluted": true}}') as unknown;
  const result = validateArguments(commit, args, { stepType: 't' });
  assert.equal(result.problems.length, 1);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(result.value), Object.prototype);
});

test('schema keywords outside the subset are refused rather than ignored', () => {
  const problems: string[] = [];
  checkArgumentSchema(
    {
      type: 'object',
      title: 'ignored annotation',
      properties: { A: { oneOf: [{ type: 'string' }] }, B: { type: 'strin' }, C: { requierd: [] } },
    },
    (path, message) => problems.push(`${path.join('.')}: ${message}`),
  );
  assert.equal(problems.length, 3);
  assert.match(
    problems[0]!,
    /^properties\.A\.oneOf: Schema keyword "oneOf" is not supported by Sluice/,
  );
  assert.match(
    problems[1]!,
    /^properties\.B\.type: .*got a string \("strin"\); did you mean "string"\?$/,
  );
  assert.match(
    problems[2]!,
    /^properties\.C\.requierd: Unknown schema keyword "requierd"; did you mean "required"\?$/,
  );
});

test('a schema must describe an object and patterns must compile', () => {
  const problems: string[] = [];
  const schema = checkArgumentSchema(
    { type: 'string', properties: { A: { pattern: '(' } } },
    (path, message) => problems.push(`${path.join('.')}: ${message}`),
  );
  assert.equal(schema, undefined);
  assert.match(
    problems[0]!,
    /^properties\.A\.pattern: Schema "pattern" is not a valid regular expression/,
  );
  assert.equal(problems[1], 'type: The arguments schema must describe an object, got type string');
});
