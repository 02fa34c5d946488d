/**
 * Typed steps (`type: account/name[:version]`) through the parser: expanded from a small
 * in-memory catalog into a group step whose steps are named `<step>_<template step>`, checked
 * like any step, with problems placed in the pipeline file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';
import type { FreestyleStep, GroupStep } from './model.js';
import { catalogFromDefinitions } from './step-types/load-step-type-catalog.js';
import type { StepTypeDefinition } from './step-types/step-type-catalog.js';

const GREET = `version: '1.0'
kind: step-type
metadata:
  name: acme/greet
  version: 1.2.0
spec:
  arguments:
    type: object
    additionalProperties: false
    required: [WHO]
    properties:
      WHO: {type: string}
  steps:
    hello:
      image: alpine
      commands: ['echo hello [[ .Arguments.WHO ]]']
    bye:
      image: alpine
      commands: [echo bye]
`;

const BROKEN_TEMPLATE = GREET.replace('acme/greet', 'acme/broken').replace(
  'commands: [echo bye]',
  'comands: [echo bye]',
);

/** A definition as a catalog holds it, its name and version read from the text. */
function inMemory(text: string): StepTypeDefinition {
  return {
    name: /name: (\S+)/.exec(text)?.[1] ?? '',
    version: /version: (\d\S*)/.exec(text)?.[1] ?? '',
    source: 'memory',
    text,
  };
}

const stepTypes = catalogFromDefinitions([GREET, BROKEN_TEMPLATE].map(inMemory), 'memory');
const text = (lines: string[]) => lines.join('\n') + '\n';

test('a typed step becomes a group of its template steps, prefixed with its name', () => {
  const result = parsePipeline(
    text([
      "version: '1.0'",
      'steps:',
      '  greet:',
      '    type: acme/greet:1.2.0',
      '    title: Greet',
      '    fail_fast: false',
      '    timeout: 5m',
      '    arguments:',
      '      WHO: world',
      '  after:',
      '    image: alpine',
      '    when:',
      '      condition:',
      "        all: {ok: steps.greet.result == 'success' && steps.greet_bye.result == 'success'}",
    ]),
    { stepTypes },
  );
  assert.ok(result.ok, JSON.stringify(result.issues));
  assert.deepEqual(result.issues, []);
  const [group] = result.pipeline.steps as [GroupStep];
  assert.equal(group.type, 'group');
  assert.equal(group.stepType, 'acme/greet:1.2.0');
  assert.equal(group.title, 'Greet');
  assert.equal(group.failFast, false);
  assert.equal(group.timeoutMs, 300_000);
  const [hello, bye] = group.steps as [FreestyleStep, FreestyleStep];
  assert.deepEqual(
    [hello.name, hello.commands, hello.origin, hello.position],
    [
      'greet_hello',
      ['echo hello world'],
      { step: 'greet', kind: 'step-type', label: 'acme/greet:1.2.0' },
      { line: 3, column: 3 },
    ],
  );
  assert.equal(bye.name, 'greet_bye');
});

test('typed step problems: arguments, a broken template, a name the group already makes', () => {
  const result = parsePipeline(
    text([
      "version: '1.0'",
      'steps:',
      '  greet:',
      '    type: acme/greet:1.2.0',
      '    arguments: {WHO: [x]}',
      '  again:',
      '    type: acme/greet:1.2.0',
      '    arguments: {WHO: you}',
      '    colour: red',
      '  again_hello:',
      '    image: alpine',
      '  broken:',
      '    type: acme/broken:1.2.0',
      '    arguments: {WHO: x}',
      '  freestle:',
      '    type: freestle',
      '    image: alpine',
    ]),
    { stepTypes },
  );
  assert.deepEqual(
    result.issues.map((i) => `${i.line}:${i.column} ${i.message} (${i.path.join('.')})`),
    [
      '5:22 Argument "WHO" of step type "acme/greet" must be a string, got a list (steps.greet.arguments.WHO)',
      '9:5 Unknown field "colour" in typed step "again" (steps.again.colour)',
      '10:3 Step name "again_hello" is also the name of a step that step "again" makes; step names must be unique, parallel steps included (steps.again_hello)',
      '13:5 Unknown field "comands" in freestyle step "bye" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "commands"? (in the template of step type "acme/broken:1.2.0") (steps.broken.type.bye.comands)',
      '16:11 Unknown step type "freestle"; did you mean "freestyle"? (steps.freestle.type)',
    ],
  );
});

test('without a catalog a typed step is not found, at its type', () => {
  const result = parsePipeline(
    text([
      "version: '1.0'",
      'steps:',
      '  greet:',
      '    type: acme/greet',
      '    arguments: {WHO: x}',
    ]),
  );
  assert.equal(result.ok, false);
  assert.deepEqual(
    result.issues.map((i) => `${i.line}:${i.column} ${i.code}`),
    ['4:11 SLUICE_PIPELINE_UNKNOWN_STEP_TYPE'],
  );
});

test("a typed step's working_directory reaches the template steps that set none", () => {
  const result = parsePipeline(
    text([
      "version: '1.0'",
      'steps:',
      '  greet:',
      '    type: acme/greet:1.2.0',
      '    working_directory: /codefresh/volume/app',
      '    arguments:',
      '      WHO: world',
    ]),
    { stepTypes },
  );
  assert.ok(result.ok, JSON.stringify(result.issues));
  const group = result.pipeline.steps[0] as GroupStep;
  assert.deepEqual(
    group.steps.map((s) => [s.name, s.workingDirectory]),
    [
      ['greet_hello', '/codefresh/volume/app'],
      ['greet_bye', '/codefresh/volume/app'],
    ],
  );
});

test('a typed step with scale is a parallel step of typed steps, each from its own arguments', () => {
  const result = parsePipeline(
    text([
      "version: '1.0'",
      'steps:',
      '  greet:',
      '    type: acme/greet:1.2.0',
      '    title: Greet both',
      '    arguments: {WHO: nobody}',
      '    scale:',
      '      greet_ann: {arguments: {WHO: ann}}',
      '      greet_bob: {arguments: {WHO: bob}}',
    ]),
    { stepTypes },
  );
  assert.ok(result.ok, JSON.stringify(result.issues));
  const [block] = result.pipeline.steps;
  assert.equal(block?.type, 'parallel');
  assert.equal(block?.title, 'Greet both');
  const groups = block?.type === 'parallel' ? (block.steps as GroupStep[]) : [];
  assert.deepEqual(
    groups.map((g) => [g.name, g.type, (g.steps[0] as FreestyleStep).commands]),
    [
      ['greet_ann', 'group', ['echo hello ann']],
      ['greet_bob', 'group', ['echo hello bob']],
    ],
  );
});
