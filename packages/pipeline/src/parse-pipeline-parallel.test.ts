/**
 * Parallel steps, implicit parallel steps (`matrix`, `scale`), success criteria, timeouts passed
 * down to children, and parallel-mode dependencies (`when.steps`) as they reach the model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';
import { parseOk } from './parse-pipeline.test-support.js';
import type { FreestyleStep, ParallelStep, PushStep } from './model.js';

test('a parallel step: children, success criteria, and its timeout passed down', () => {
  const [checks] = parseOk([
    "version: '1.0'",
    'steps:',
    '  checks:',
    '    type: parallel',
    '    timeout: 30m',
    '    fail_fast: false',
    '    success_criteria:',
    '      steps:',
    '        only: [lint]',
    '      condition:',
    '        all:',
    "          linted: steps.lint.result == 'success'",
    '    steps:',
    '      lint:',
    '        image: alpine',
    '      unit:',
    '        image: alpine',
    '        timeout: 5m',
  ]).steps as [ParallelStep];
  assert.equal(checks.type, 'parallel');
  assert.equal(checks.timeoutMs, 1_800_000);
  assert.equal(checks.failFast, false);
  assert.deepEqual(
    checks.steps.map((s) => [s.name, s.timeoutMs, s.position.line]),
    [
      ['lint', 1_800_000, 14],
      ['unit', 300_000, 16],
    ],
  );
  assert.deepEqual(checks.successCriteria?.only, ['lint']);
  assert.deepEqual(checks.successCriteria?.conditions, [
    {
      mode: 'all',
      expressions: [
        {
          name: 'linted',
          source: "steps.lint.result == 'success'",
          position: { line: 12, column: 19 },
          path: ['steps', 'checks', 'success_criteria', 'condition', 'all', 'linted'],
        },
      ],
    },
  ]);
});

test('matrix: one copy per combination, first field slowest, environment merged', () => {
  const [tests] = parseOk([
    "version: '1.0'",
    'steps:',
    '  tests:',
    '    title: Unit tests',
    '    commands: [go test ./...]',
    '    environment: [GOFLAGS=-mod=mod, CGO_ENABLED=1]',
    '    timeout: 10m',
    '    when:',
    '      branch: {only: [main]}',
    '    matrix:',
    '      image: [golang:1.21, golang:1.22]',
    '      environment:',
    '        - [CGO_ENABLED=0]',
    '        - [EXTRA=1]',
  ]).steps as [ParallelStep];
  assert.equal(tests.type, 'parallel');
  assert.equal(tests.name, 'tests');
  assert.equal(tests.title, 'Unit tests');
  assert.deepEqual(tests.when?.branch?.only, ['main'], 'the block keeps the condition');
  assert.equal(tests.timeoutMs, 600_000);
  const children = tests.steps as FreestyleStep[];
  assert.deepEqual(
    children.map((s) => [s.name, s.image, s.environment, s.origin, s.when, s.timeoutMs]),
    [
      [
        'tests_0',
        'golang:1.21',
        [
          ['GOFLAGS', '-mod=mod'],
          ['CGO_ENABLED', '0'],
        ],
        { step: 'tests', kind: 'matrix', label: 'image=golang:1.21, environment=[CGO_ENABLED=0]' },
        undefined,
        600_000,
      ],
      [
        'tests_1',
        'golang:1.21',
        [
          ['GOFLAGS', '-mod=mod'],
          ['CGO_ENABLED', '1'],
          ['EXTRA', '1'],
        ],
        { step: 'tests', kind: 'matrix', label: 'image=golang:1.21, environment=[EXTRA=1]' },
        undefined,
        600_000,
      ],
      [
        'tests_2',
        'golang:1.22',
        [
          ['GOFLAGS', '-mod=mod'],
          ['CGO_ENABLED', '0'],
        ],
        { step: 'tests', kind: 'matrix', label: 'image=golang:1.22, environment=[CGO_ENABLED=0]' },
        undefined,
        600_000,
      ],
      [
        'tests_3',
        'golang:1.22',
        [
          ['GOFLAGS', '-mod=mod'],
          ['CGO_ENABLED', '1'],
          ['EXTRA', '1'],
        ],
        { step: 'tests', kind: 'matrix', label: 'image=golang:1.22, environment=[EXTRA=1]' },
        undefined,
        600_000,
      ],
    ],
  );
  assert.ok(children.every((s) => s.position.line === 3 && s.title === 'Unit tests'));
});

test("matrix.environment as KEY=value strings: each string is one copy's environment", () => {
  const [tests] = parseOk([
    "version: '1.0'",
    'steps:',
    '  tests:',
    '    image: alpine',
    '    environment: [GO=1.20, CI=1]',
    '    matrix:',
    '      environment: [GO=1.21, [GO=1.22, EXTRA=1], {GO: "1.23"}]',
  ]).steps as [ParallelStep];
  const children = tests.steps as FreestyleStep[];
  assert.deepEqual(
    children.map((s) => [s.name, s.environment, s.origin?.label]),
    [
      [
        'tests_0',
        [
          ['CI', '1'],
          ['GO', '1.21'],
        ],
        'environment=[GO=1.21]',
      ],
      [
        'tests_1',
        [
          ['CI', '1'],
          ['GO', '1.22'],
          ['EXTRA', '1'],
        ],
        'environment=[GO=1.22, EXTRA=1]',
      ],
      [
        'tests_2',
        [
          ['CI', '1'],
          ['GO', '1.23'],
        ],
        'environment=[GO=1.23]',
      ],
    ],
  );
});

test("a parallel step's steps written as a list of one-step maps, issues at their place in it", () => {
  const [checks] = parseOk([
    "version: '1.0'",
    'steps:',
    '  checks:',
    '    type: parallel',
    '    steps:',
    '      - lint:',
    '          image: alpine',
    '      - unit: {image: busybox}',
  ]).steps as [ParallelStep];
  assert.deepEqual(
    checks.steps.map((s) => [s.name, (s as FreestyleStep).image, s.position.line]),
    [
      ['lint', 'alpine', 6],
      ['unit', 'busybox', 8],
    ],
  );
  const untyped = parseOk([
    "version: '1.0'",
    'steps:',
    '  checks:',
    '    steps:',
    '      - lint: {image: alpine}',
  ]).steps as [ParallelStep];
  assert.equal(untyped[0].type, 'parallel', 'a step holding a steps list is parallel, as a map');
  const broken = parsePipeline(
    [
      "version: '1.0'",
      'steps:',
      '  checks:',
      '    type: parallel',
      '    steps:',
      '      - lint: {image: alpine}',
      '      - unit: {image: alpine}',
      '        e2e: {image: alpine}',
      '      - lint: {image: busybox}',
      '      - plain',
    ].join('\n'),
  );
  assert.equal(broken.ok, false);
  assert.deepEqual(
    broken.issues.map((i) => `${i.line}:${i.column} ${i.severity} ${i.message}`),
    [
      '7:9 error Item 2 of "steps" must be one step, a map with one key (the step\'s name), got 2 keys',
      '9:9 error Step "lint" is listed twice in "steps"',
      '10:9 error Item 4 of "steps" must be one step, a map with one key (the step\'s name), got the string "plain"',
    ],
  );
});

test('scale: one copy per variant, named by its key, its fields over the step', () => {
  const [push] = parseOk([
    "version: '1.0'",
    'steps:',
    '  push:',
    '    type: push',
    '    candidate: ${{image}}',
    '    tag: v1',
    '    scale:',
    '      to_local:',
    '        registry: local',
    '      to_mirror:',
    '        registry: mirror',
    '        image_name: mirror/app',
  ]).steps as [ParallelStep];
  assert.equal(push.type, 'parallel');
  const children = push.steps as PushStep[];
  assert.deepEqual(
    children.map((s) => [s.name, s.type, s.registry, s.imageName, s.tags, s.origin?.label]),
    [
      ['to_local', 'push', 'local', undefined, ['v1'], 'to_local'],
      ['to_mirror', 'push', 'mirror', 'mirror/app', ['v1'], 'to_mirror'],
    ],
  );
});

test('a field every matrix or scale copy sets need not be on the step', () => {
  const pipeline = parseOk([
    "version: '1.0'",
    'steps:',
    '  m:',
    '    matrix: {image: [alpine, busybox]}',
    '  s:',
    '    scale:',
    '      one: {image: alpine}',
    '      two: {image: busybox}',
  ]);
  assert.deepEqual(
    pipeline.steps.flatMap((s) => (s as ParallelStep).steps.map((c) => (c as FreestyleStep).image)),
    ['alpine', 'busybox', 'alpine', 'busybox'],
  );
});

test('mode: parallel with when.steps in list form, map form, and on as one string', () => {
  const pipeline = parseOk([
    "version: '1.0'",
    'mode: parallel',
    'steps:',
    '  build:',
    '    image: alpine',
    '  test:',
    '    image: alpine',
    '    when:',
    '      steps:',
    '        - name: build',
    '  lint:',
    '    image: alpine',
    '    when:',
    '      steps:',
    '        - name: build',
    '          on: finished',
    '  report:',
    '    image: alpine',
    '    when:',
    '      steps:',
    '        any:',
    '          - name: test',
    '            on: [failure, skipped]',
    '          - name: lint',
  ]);
  assert.equal(pipeline.mode, 'parallel');
  const [, test, lint, report] = pipeline.steps;
  assert.deepEqual(test?.when?.steps, {
    mode: 'all',
    dependencies: [{ step: 'build', on: ['success'] }],
  });
  assert.deepEqual(lint?.when?.steps?.dependencies, [{ step: 'build', on: ['finished'] }]);
  assert.deepEqual(report?.when?.steps, {
    mode: 'any',
    dependencies: [
      { step: 'test', on: ['failure', 'skipped'] },
      { step: 'lint', on: ['success'] },
    ],
  });
});

test('the key "on" reaches the parser as the string "on", not YAML 1.1 true', () => {
  // YAML 1.2 (the parser's default) has no yes/no/on/off booleans.
  const pipeline = parseOk([
    "version: '1.0'",
    'mode: parallel',
    'steps:',
    '  a:',
    '    image: alpine',
    '  b:',
    '    image: alpine',
    '    when:',
    '      steps: [{name: a, on: [failure]}]',
  ]);
  assert.deepEqual(pipeline.steps[1]?.when?.steps?.dependencies, [{ step: 'a', on: ['failure'] }]);
});

test('when.steps in a sequential pipeline is kept, with a warning that it orders nothing', () => {
  const result = parsePipeline(
    [
      "version: '1.0'",
      'steps:',
      '  a:',
      '    image: alpine',
      '  b:',
      '    image: alpine',
      '    when:',
      '      steps: [{name: a}]',
    ].join('\n'),
  );
  assert.ok(result.ok);
  assert.deepEqual(
    result.issues.map((i) => `${i.line}:${i.column} ${i.severity} ${i.message}`),
    [
      '8:7 warning "when.steps" only orders steps in a pipeline with mode: parallel; here steps run in file order',
    ],
  );
  assert.equal(result.pipeline.steps[1]?.when?.steps?.dependencies[0]?.step, 'a');
});
