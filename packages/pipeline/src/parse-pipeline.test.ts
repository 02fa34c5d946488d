/**
 * Broken pipelines, each with every issue it must produce. Positions are 1-based and were
 * counted by hand from the fixture text: each fixture is one string per line, so the line number
 * is the element's index plus one, and the comment above a row says which character is meant.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';

interface Expected {
  /** `line:column`. */
  at: string;
  message: string;
  code?: string;
}

interface Row {
  name: string;
  yaml: string[];
  issues: Expected[];
}

const SYNTAX = 'SLUICE_PIPELINE_YAML_SYNTAX';
const UNKNOWN_FIELD = 'SLUICE_PIPELINE_UNKNOWN_FIELD';
const MISSING = 'SLUICE_PIPELINE_MISSING_FIELD';
const INVALID = 'SLUICE_PIPELINE_INVALID_VALUE';

const HEAD = ["version: '1.0'", 'steps:'];

const rows: Row[] = [
  {
    name: 'a key indented past its siblings continues the line above',
    // Line 5 has five spaces, so "commands" starts at column 6.
    yaml: [...HEAD, '  build:', '    image: alpine', '     commands: [make]'],
    issues: [
      {
        at: '5:6',
        message: '"commands" continues the line above; check its indentation',
        code: SYNTAX,
      },
    ],
  },
  {
    name: 'a key indented less than its siblings',
    yaml: [...HEAD, '  build:', '    image: alpine', '   commands: [make]'],
    issues: [
      {
        at: '5:4',
        message:
          'Key "commands" is not indented like the other keys of its map: it is at column 4, the key above it at column 5',
        code: SYNTAX,
      },
    ],
  },
  {
    name: 'a list item indented between its key and its siblings',
    yaml: [
      ...HEAD,
      '  build:',
      '    image: alpine',
      '    commands:',
      '      - make',
      '     - make test',
    ],
    issues: [{ at: '7:6', message: '"- make test" is not indented like the lines above it' }],
  },
  {
    name: 'a duplicate key is named at its second occurrence',
    yaml: [...HEAD, '  build:', '    image: alpine', '    image: node'],
    issues: [
      { at: '5:5', message: 'Duplicate key "image"; it is also at line 4, column 5', code: SYNTAX },
    ],
  },
  {
    name: 'a tab used for indentation',
    yaml: [...HEAD, '  build:', '\timage: alpine'],
    issues: [
      {
        at: '4:1',
        message: 'Tab character used for indentation; indent with spaces',
        code: SYNTAX,
      },
    ],
  },
  {
    name: 'an unquoted value holding ": "',
    // "Build" starts at column 12: four spaces, "title" (5-9), ":" (10), a space (11).
    yaml: [...HEAD, '  build:', '    image: alpine', '    title: Build: all'],
    issues: [
      {
        at: '5:12',
        message: 'A value holding ": " must be quoted or written as a block scalar (|-)',
      },
    ],
  },
  {
    name: 'a second YAML document',
    yaml: [...HEAD, '  build:', '    image: alpine', '---', 'other: 1'],
    issues: [
      { at: '5:1', message: 'A pipeline file holds one YAML document; found a second "---"' },
    ],
  },
  {
    name: 'an empty file',
    yaml: ['# nothing but a comment'],
    issues: [{ at: '1:1', message: 'The pipeline file is empty; it needs "version" and "steps"' }],
  },
  {
    name: 'a list at the root',
    yaml: ["- version: '1.0'"],
    issues: [
      { at: '1:1', message: 'A pipeline must be a map with "version" and "steps", got a list' },
    ],
  },
  {
    name: 'a scalar at the root',
    yaml: ['hello'],
    issues: [
      {
        at: '1:1',
        message: 'A pipeline must be a map with "version" and "steps", got the string "hello"',
        code: INVALID,
      },
    ],
  },
  {
    name: 'missing steps',
    yaml: ["version: '1.0'"],
    issues: [{ at: '1:1', message: 'Missing required field "steps" in pipeline', code: MISSING }],
  },
  {
    name: 'a version other than 1.0',
    // The value's opening quote is at column 10.
    yaml: ["version: '2.0'", 'steps:', '  build:', '    image: alpine'],
    issues: [{ at: '1:10', message: '"version" must be "1.0", got the string "2.0"' }],
  },
  {
    name: 'empty steps',
    yaml: ["version: '1.0'", 'steps: {}'],
    issues: [{ at: '2:8', message: '"steps" must hold at least one step' }],
  },
  {
    name: 'steps written as a list',
    yaml: [...HEAD, '  - build'],
    issues: [{ at: '3:3', message: '"steps" must be a map of steps, got a list' }],
  },
  {
    name: 'steps that are a string, a list and nothing',
    // An empty value sits just after its colon: column 5 of "  c:".
    yaml: [...HEAD, '  a: echo hi', '  b: [alpine]', '  c:'],
    issues: [
      { at: '3:6', message: 'Step "a" must be a map of fields, got the string "echo hi"' },
      { at: '4:6', message: 'Step "b" must be a map of fields, got a list' },
      { at: '5:5', message: 'Step "c" must be a map of fields, got nothing' },
    ],
  },
  {
    name: 'misspelt fields get a suggestion, at the key',
    yaml: [
      ...HEAD,
      '  build:',
      '    imgae: alpine',
      '    comands: [make]',
      '    working_dirctory: /src',
    ],
    issues: [
      { at: '3:3', message: 'Missing required field "image" in freestyle step "build"' },
      {
        at: '4:5',
        message:
          'Unknown field "imgae" in freestyle step "build" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "image"?',
        code: UNKNOWN_FIELD,
      },
      {
        at: '5:5',
        message:
          'Unknown field "comands" in freestyle step "build" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "commands"?',
        code: UNKNOWN_FIELD,
      },
      {
        at: '6:5',
        message:
          'Unknown field "working_dirctory" in freestyle step "build" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "working_directory"?',
        code: UNKNOWN_FIELD,
      },
    ],
  },
  {
    name: 'values of the wrong type, at the value',
    // "    depth: " is 11 characters, "    fail_fast: " 15, "    commands: " 14, "    environment: " 17.
    yaml: [
      ...HEAD,
      '  clone:',
      '    type: git-clone',
      '    repo: acme/app',
      '    depth: abc',
      '    fail_fast: maybe',
      '  build:',
      '    image: alpine',
      '    commands: 42',
      '    environment: 7',
    ],
    issues: [
      { at: '6:12', message: '"depth" must be a number, got the string "abc"', code: INVALID },
      { at: '7:16', message: '"fail_fast" must be true, false or a map, got the string "maybe"' },
      {
        at: '10:15',
        message: '"commands" must be a string or a list of strings, got the number 42',
      },
      {
        at: '11:18',
        message:
          '"environment" must be a list of KEY=value strings or a map of values, got the number 7',
      },
    ],
  },
  {
    name: 'an unknown shell and an environment entry without "="',
    yaml: [
      ...HEAD,
      '  build:',
      '    image: alpine',
      '    shell: zsh',
      '    environment:',
      '      - CI=true',
      '      - DEBUG',
    ],
    issues: [
      {
        at: '5:12',
        message: '"shell" must be one of "sh", "bash", got the string "zsh"; did you mean "sh"?',
      },
      { at: '8:9', message: 'Environment entry "DEBUG" must be written KEY=value' },
    ],
  },
  {
    name: 'a command holding ": " that YAML read as a map',
    yaml: [...HEAD, '  build:', '    image: alpine', '    commands:', '      - echo status: ok'],
    issues: [
      {
        at: '6:9',
        message:
          'Item 0 of "commands" must be a string, got a map; quote text that holds ": " or write it as a block scalar (|-)',
      },
    ],
  },
  {
    name: 'a git-clone step without repo and a freestyle step without image, at the step name',
    yaml: [
      ...HEAD,
      '  clone:',
      '    type: git-clone',
      '    revision: main',
      '  build:',
      '    commands: [make]',
    ],
    issues: [
      { at: '3:3', message: 'Missing required field "repo" in git-clone step "clone"' },
      { at: '6:3', message: 'Missing required field "image" in freestyle step "build"' },
    ],
  },
];

function expectIssues(row: Row): void {
  const result = parsePipeline(row.yaml.join('\n') + '\n', { file: 'ci.yml' });
  assert.equal(result.ok, false, 'expected the pipeline to be rejected');
  const actual = result.issues.map((issue, index) => {
    assert.equal(issue.file, 'ci.yml');
    const code = row.issues[index]?.code;
    return {
      at: `${issue.line}:${issue.column}`,
      message: issue.message,
      ...(code === undefined ? {} : { code: issue.code }),
    };
  });
  assert.deepEqual(actual, row.issues);
}

for (const row of rows) test(`rejects ${row.name}`, () => expectIssues(row));

test('every issue is an error with a path when the pipeline is rejected', () => {
  const result = parsePipeline('version: "1.0"\nsteps:\n  build:\n    image: [1]\n');
  assert.equal(result.ok, false);
  assert.deepEqual(
    result.issues.map((i) => ({ severity: i.severity, path: i.path })),
    [{ severity: 'error', path: ['steps', 'build', 'image'] }],
  );
});

test('the file name defaults to codefresh.yml', () => {
  const result = parsePipeline('steps: {}\n');
  assert.ok(result.issues.every((i) => i.file === 'codefresh.yml'));
});
