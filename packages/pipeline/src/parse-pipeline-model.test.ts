/**
 * Valid pipelines and the `Pipeline` model built from them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';
import { parseOk } from './parse-pipeline.test-support.js';
import type { FreestyleStep, GitCloneStep } from './model.js';

const parseCi = (lines: string[]) => parseOk(lines, { file: 'ci.yml' });

test('an unquoted version 1.0 is accepted with a warning at the value', () => {
  const result = parsePipeline('version: 1.0\nsteps:\n  build:\n    image: alpine\n');
  assert.equal(result.ok, true);
  assert.deepEqual(
    result.issues.map((i) => [i.severity, i.code, `${i.line}:${i.column}`, i.message]),
    [
      [
        'warning',
        'SLUICE_PIPELINE_DEPRECATED',
        '1:10',
        '"version" should be the string "1.0", got the number 1; quote it',
      ],
    ],
  );
});

test('the model keeps step order, defaults and the git-clone fields', () => {
  const pipeline = parseCi([
    "version: '1.0'",
    'steps:',
    '  main_clone:',
    '    type: git-clone',
    '    repo: acme/app',
    '    revision: main',
    "    depth: '1'",
    '    credentials:',
    '      username: bot',
    '      password: ${{GIT_TOKEN}}',
    '    git: github-main',
    '  build:',
    '    title: Build',
    '    image: node:20',
    '    working_directory: ${{main_clone}}',
    '    commands: npm ci && npm test',
  ]);
  assert.equal(pipeline.file, 'ci.yml');
  assert.equal(pipeline.failFast, true);
  assert.deepEqual(pipeline.stages, []);
  const [clone, build] = pipeline.steps as [GitCloneStep, FreestyleStep];
  assert.deepEqual(clone, {
    name: 'main_clone',
    type: 'git-clone',
    title: undefined,
    description: undefined,
    stage: undefined,
    workingDirectory: undefined,
    failFast: true,
    strictFailFast: false,
    timeoutMs: undefined,
    retry: undefined,
    hooks: {},
    origin: undefined,
    when: undefined,
    position: { line: 3, column: 3 },
    repo: 'acme/app',
    revision: 'main',
    depth: 1,
    credentials: { username: 'bot', password: '${{GIT_TOKEN}}' },
    git: 'github-main',
    useProxy: false,
  });
  assert.equal(build.type, 'freestyle');
  assert.equal(build.title, 'Build');
  assert.equal(build.image, 'node:20');
  assert.equal(build.workingDirectory, '${{main_clone}}');
  assert.deepEqual(build.commands, ['npm ci && npm test']);
  assert.equal(build.shell, 'sh');
  assert.deepEqual(build.environment, []);
  assert.deepEqual(build.volumes, []);
  assert.deepEqual(build.position, { line: 12, column: 3 });
});

test('the root fail_fast is the default a step may override', () => {
  const pipeline = parseCi([
    "version: '1.0'",
    'fail_fast: false',
    'steps:',
    '  lint:',
    '    image: alpine',
    '  test:',
    '    image: alpine',
    "    fail_fast: 'true'",
    '  docs:',
    '    image: alpine',
    '    fail_fast: {}',
  ]);
  assert.equal(pipeline.failFast, false);
  assert.deepEqual(
    pipeline.steps.map((s) => [s.name, s.failFast]),
    [
      ['lint', false],
      ['test', true],
      ['docs', false],
    ],
  );
});

test('environment as a list or a map becomes ordered pairs', () => {
  const pipeline = parseCi([
    "version: '1.0'",
    'steps:',
    '  list:',
    '    image: alpine',
    '    shell: bash',
    '    environment:',
    '      - A=1',
    '      - B=x=y',
    '      - C=',
    '  map:',
    '    image: alpine',
    '    environment:',
    '      A: 1',
    '      B: true',
    '      C:',
  ]);
  const [list, map] = pipeline.steps as [FreestyleStep, FreestyleStep];
  assert.equal(list.shell, 'bash');
  assert.deepEqual(list.environment, [
    ['A', '1'],
    ['B', 'x=y'],
    ['C', ''],
  ]);
  assert.deepEqual(map.environment, [
    ['A', '1'],
    ['B', 'true'],
    ['C', ''],
  ]);
});

test('anchors, aliases and merge keys are expanded', () => {
  const pipeline = parseCi([
    "version: '1.0'",
    'indicators:',
    '  - base: &base',
    '      image: alpine',
    '      environment: &env [CI=true]',
    'steps:',
    '  unit:',
    '    <<: *base',
    '    commands: [make test]',
    '  lint:',
    '    <<: *base',
    '    image: node',
    '    environment: *env',
  ]);
  const [unit, lint] = pipeline.steps as [FreestyleStep, FreestyleStep];
  assert.equal(unit.image, 'alpine');
  assert.deepEqual(unit.environment, [['CI', 'true']]);
  assert.equal(lint.image, 'node', 'an explicit key wins over the merged one');
  assert.deepEqual(lint.environment, [['CI', 'true']]);
});

test('stages, branch filters and conditions reach the model', () => {
  const pipeline = parseCi([
    "version: '1.0'",
    'stages: [test, deploy]',
    'steps:',
    '  test:',
    '    image: alpine',
    '    stage: test',
    '  deploy:',
    '    image: alpine',
    '    stage: deploy',
    '    volumes: ["${{CF_VOLUME_PATH}}/out:/out"]',
    '    when:',
    '      branch:',
    '        only: [main, /^release-.*/i]',
    '      condition:',
    '        all:',
    '          passed: "steps.test.result == \'success\'"',
    "          named: steps.${{TARGET}}.result == 'success'",
    '        any:',
    '          block: |',
    '            workflow.result == "success"',
  ]);
  assert.deepEqual(pipeline.stages, ['test', 'deploy']);
  const deploy = pipeline.steps[1] as FreestyleStep;
  assert.equal(deploy.stage, 'deploy');
  assert.deepEqual(deploy.volumes, ['${{CF_VOLUME_PATH}}/out:/out']);
  assert.deepEqual(deploy.when?.branch, { only: ['main', '/^release-.*/i'], ignore: undefined });
  const [all, any] = deploy.when?.conditions ?? [];
  const path = ['steps', 'deploy', 'when', 'condition'];
  // "passed" is double-quoted: the quote is column 19, its text starts at column 20.
  assert.deepEqual(all, {
    mode: 'all',
    expressions: [
      {
        name: 'passed',
        source: "steps.test.result == 'success'",
        position: { line: 16, column: 20 },
        path: [...path, 'all', 'passed'],
      },
      {
        name: 'named',
        source: "steps.${{TARGET}}.result == 'success'",
        position: { line: 17, column: 18 },
        path: [...path, 'all', 'named'],
      },
    ],
  });
  // A block scalar has no single start column.
  assert.deepEqual(any?.expressions[0]?.position, undefined);
  assert.equal(any?.expressions[0]?.source, 'workflow.result == "success"\n');
});

test('step names that are numbers, booleans or Object.prototype names stay names', () => {
  const pipeline = parseCi([
    "version: '1.0'",
    'steps:',
    '  1:',
    '    image: alpine',
    '  true:',
    '    image: alpine',
    '  __proto__:',
    '    image: alpine',
    '  constructor:',
    '    image: alpine',
  ]);
  assert.deepEqual(
    pipeline.steps.map((s) => s.name),
    ['1', 'true', '__proto__', 'constructor'],
  );
});

test('commands, cmd and entry_point accept a single string or a list', () => {
  const pipeline = parseCi([
    "version: '1.0'",
    'steps:',
    '  script:',
    '    image: alpine',
    '    commands: |-',
    '      echo "a: b"',
    '      make',
    '  entry:',
    '    image: alpine',
    '    entry_point: /bin/app',
    '    cmd: [--port, 8080]',
  ]);
  const [script, entry] = pipeline.steps as [FreestyleStep, FreestyleStep];
  assert.deepEqual(script.commands, ['echo "a: b"\nmake']);
  assert.deepEqual(entry.entryPoint, ['/bin/app']);
  assert.deepEqual(entry.cmd, ['--port', '8080']);
  assert.equal(entry.commands, undefined);
});
