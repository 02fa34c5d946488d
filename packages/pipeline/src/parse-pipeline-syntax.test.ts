/**
 * Real-world ways of writing the same pipeline: the full `kind: pipeline` document, step fields
 * under `arguments:`, a missing or unquoted `version`, one-string `commands`, and anchors parked
 * under keys that are not pipeline keys. Positions must still point at the lines written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';
import type { FreestyleStep } from './model.js';

const text = (lines: string[]) => lines.join('\n') + '\n';
const describe = (
  issues: {
    line: number;
    column: number;
    severity: string;
    code: string;
    message: string;
    path: readonly (string | number)[];
  }[],
) =>
  issues.map(
    (i) =>
      `${i.line}:${i.column} ${i.severity} ${i.code.replace('SLUICE_PIPELINE_', '')} ${i.message} (${i.path.join('.')})`,
  );

test('a kind: pipeline document is read from its spec, positions in the real file', () => {
  const result = parsePipeline(
    text([
      "version: '1.0'",
      'kind: pipeline',
      'metadata:',
      '  name: demo/ci',
      '  labels: {tags: [ci]}',
      'spec:',
      '  triggers: []',
      '  mode: parallel',
      '  fail_fast: false',
      '  stages: [test]',
      '  hooks:',
      '    on_finish: {exec: {image: alpine, commands: [echo]}}',
      '  steps:',
      '    test:',
      '      image: alpine',
      '      stage: test',
      '      when:',
      '        condition:',
      '          all: {main: \'"${{CF_BRANCH}}" == "main"\'}',
    ]),
  );
  assert.ok(result.ok, JSON.stringify(result.issues));
  assert.deepEqual(describe(result.issues), [
    '7:3 warning IGNORED "triggers" is a Codefresh control-plane setting; Sluice ignores it (spec.triggers)',
  ]);
  const { pipeline } = result;
  assert.equal(pipeline.mode, 'parallel');
  assert.equal(pipeline.failFast, false);
  assert.deepEqual(pipeline.stages, ['test']);
  assert.ok(pipeline.hooks.onFinish?.exec);
  const [step] = pipeline.steps;
  assert.deepEqual(step?.position, { line: 14, column: 5 });
  const expression = step?.when?.conditions?.[0]?.expressions[0];
  // The quote is at column 23, so the expression starts at column 24.
  assert.deepEqual(expression?.position, { line: 19, column: 24 });
  assert.deepEqual(expression?.path, ['spec', 'steps', 'test', 'when', 'condition', 'all', 'main']);
});

test('problems in a kind: pipeline document are placed in the real file with spec in the path', () => {
  const result = parsePipeline(
    text([
      'kind: pipeline',
      'metadata: {name: x}',
      'spec:',
      '  specTemplate: {repo: a/b}',
      '  steps:',
      '    test:',
      '      image: alpine',
      '      shell: zsh',
      '  colour: red',
    ]),
  );
  assert.deepEqual(describe(result.issues), [
    '1:1 warning MISSING_FIELD The pipeline has no "version"; it is read as version "1.0" ()',
    '4:3 warning UNSUPPORTED Field "specTemplate" of pipeline spec is not run by Sluice: Sluice reads only the pipeline file; the build stops before its first step (spec.specTemplate)',
    '8:14 error INVALID_VALUE "shell" must be one of "sh", "bash", got the string "zsh"; did you mean "sh"? (spec.steps.test.shell)',
    '9:3 error UNKNOWN_FIELD Unknown field "colour" in pipeline spec (spec.colour)',
  ]);
});

test('a document of another kind, or one without spec, is refused', () => {
  const other = parsePipeline(text(["version: '1.0'", 'kind: step-type', 'spec: {}']));
  assert.deepEqual(describe(other.issues), [
    '2:7 error INVALID_VALUE "kind" must be one of "pipeline", got the string "step-type" (kind)',
  ]);
  const bare = parsePipeline(text(["version: '1.0'", 'kind: pipeline']));
  assert.deepEqual(describe(bare.issues), [
    '1:1 error MISSING_FIELD Missing required field "spec" in pipeline document ()',
  ]);
});

test('fields of a built-in step under arguments: are the same step, placed where written', () => {
  const result = parsePipeline(
    text([
      "version: '1.0'",
      'steps:',
      '  plain:',
      '    type: freestyle',
      '    title: Plain',
      '    arguments:',
      '      image: alpine',
      '      commands: [make]',
      '  checks:',
      '    type: parallel',
      '    arguments:',
      '      steps:',
      '        lint:',
      '          type: freestyle',
      '          arguments:',
      '            image: alpine',
    ]),
  );
  assert.ok(result.ok, JSON.stringify(result.issues));
  const [plain, checks] = result.pipeline.steps;
  assert.equal((plain as FreestyleStep).image, 'alpine');
  assert.deepEqual((plain as FreestyleStep).commands, ['make']);
  assert.equal(plain?.title, 'Plain');
  assert.equal(checks?.type, 'parallel');
  const lint = checks?.type === 'parallel' ? checks.steps[0] : undefined;
  assert.deepEqual([lint?.name, lint?.position], ['lint', { line: 13, column: 9 }]);

  const broken = parsePipeline(
    text([
      "version: '1.0'",
      'steps:',
      '  plain:',
      '    type: freestyle',
      '    image: alpine',
      '    arguments:',
      '      image: busybox',
      '      shell: zsh',
      '      comands: [make]',
      '  nested:',
      '    type: parallel',
      '    arguments:',
      '      steps:',
      '        lint:',
      '          arguments: {image: [x]}',
      '  bad:',
      '    image: alpine',
      '    arguments: [x]',
    ]),
  );
  assert.deepEqual(describe(broken.issues), [
    '7:7 error INVALID_VALUE Field "image" is written both on the step and in its "arguments" (steps.plain.arguments.image)',
    '8:14 error INVALID_VALUE "shell" must be one of "sh", "bash", got the string "zsh"; did you mean "sh"? (steps.plain.arguments.shell)',
    '9:7 warning UNKNOWN_FIELD Unknown field "comands" in freestyle step "plain" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "commands"? (steps.plain.arguments.comands)',
    '15:30 error INVALID_VALUE "image" must be a string, got a list (steps.nested.arguments.steps.lint.arguments.image)',
    '18:16 error INVALID_VALUE "arguments" must be a map of the step\'s fields, got a list (steps.bad.arguments)',
  ]);
});

test('a missing version is read as 1.0 with a warning; an unquoted 1.0 with another', () => {
  const missing = parsePipeline(text(['# CI', 'steps:', '  build:', '    image: alpine']));
  assert.ok(missing.ok);
  assert.equal(missing.pipeline.version, '1.0');
  assert.deepEqual(describe(missing.issues), [
    '2:1 warning MISSING_FIELD The pipeline has no "version"; it is read as version "1.0" ()',
  ]);
  const number = parsePipeline(text(['version: 1.0', 'steps:', '  build:', '    image: alpine']));
  assert.ok(number.ok);
  assert.deepEqual(describe(number.issues), [
    '1:10 warning DEPRECATED "version" should be the string "1.0", got the number 1; quote it (version)',
  ]);
});

test('commands written as one string is one entry of the command list', () => {
  const result = parsePipeline(
    text(["version: '1.0'", 'steps:', '  a:', '    image: alpine', '    commands: make test']),
  );
  assert.ok(result.ok);
  assert.deepEqual((result.pipeline.steps[0] as FreestyleStep).commands, ['make test']);
});

test('anchors parked under x- keys or any other key that defines one are accepted', () => {
  const result = parsePipeline(
    text([
      "version: '1.0'",
      'x-defaults: &defaults',
      '  image: alpine',
      '  environment: [CI=true]',
      'templates:',
      '  base: &base {shell: bash}',
      'x-plain: nothing anchored here',
      'steps:',
      '  a:',
      '    <<: [*defaults, *base]',
      '    commands: [make]',
      '  b:',
      '    <<: *defaults',
      '    environment: [CI=false]',
    ]),
  );
  assert.ok(result.ok, JSON.stringify(result.issues));
  assert.deepEqual(result.issues, []);
  const [a, b] = result.pipeline.steps as [FreestyleStep, FreestyleStep];
  assert.deepEqual([a.image, a.shell, a.environment], ['alpine', 'bash', [['CI', 'true']]]);
  assert.deepEqual(b.environment, [['CI', 'false']]);

  const typo = parsePipeline(
    text(["version: '1.0'", 'stepz: {}', 'steps:', '  a:', '    image: x']),
  );
  assert.deepEqual(describe(typo.issues), [
    '2:1 error UNKNOWN_FIELD Unknown field "stepz" in pipeline; did you mean "steps"? (stepz)',
  ]);
});
