import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStepTypeDocument } from './parse-step-type-document.js';

function lines(...text: string[]): string {
  return text.join('\n') + '\n';
}

function issuesOf(text: string): string[] {
  const result = parseStepTypeDocument(text, 'hello.yml');
  assert.equal(result.ok, false, 'expected the document to be rejected');
  return result.ok ? [] : result.issues.map((i) => `${i.line}:${i.column} ${i.message}`);
}

const HEADER = [
  "version: '1.0'",
  'kind: step-type',
  'metadata:',
  '  name: acme/hello',
  '  version: 1.2.0',
];

test('a good document gives its name, version, schema, template and delimiters', () => {
  const result = parseStepTypeDocument(
    lines(
      ...HEADER,
      '  description: Say hello',
      '  maintainers: [{ name: Acme }]',
      '  icon: { type: svg }',
      'spec:',
      '  arguments:',
      '    type: object',
      '    properties:',
      '      WHO: { type: string, default: world }',
      '  steps:',
      '    hello:',
      '      image: sluice/busybox:1',
      "      commands: ['echo hello [[ .Arguments.WHO ]]']",
    ),
    'hello.yml',
  );
  assert.ok(result.ok, JSON.stringify(result));
  const { definition } = result;
  assert.equal(definition.name, 'acme/hello');
  assert.equal(definition.version, '1.2.0');
  assert.equal(definition.description, 'Say hello');
  assert.equal(definition.source, 'hello.yml');
  assert.deepEqual(definition.delimiters, { left: '[[', right: ']]' });
  assert.deepEqual(definition.argumentsSchema.properties?.WHO?.default, 'world');
  assert.deepEqual(definition.steps, {
    hello: { image: 'sluice/busybox:1', commands: ['echo hello [[ .Arguments.WHO ]]'] },
  });
  assert.deepEqual(result.warnings, []);
});

test('header and metadata problems are all reported, placed, with hints', () => {
  const issues = issuesOf(
    lines('version: 1.0', 'kind: step-typ', 'metdata: {}', 'spec:', '  steps: { s: { image: a } }'),
  );
  assert.deepEqual(issues, [
    '1:1 A step-type document needs "metadata", a map with name and version',
    '1:10 "version" must be the string "1.0", got a number (1); quote it',
    '2:7 "kind" must be "step-type", got a string ("step-typ")',
    '3:1 Unknown field "metdata" in a step-type document; did you mean "metadata"?',
  ]);
  const meta = issuesOf(
    lines(
      "version: '1.0'",
      'kind: step-type',
      'metadata:',
      '  name: Acme Hello',
      '  version: 1.0',
      'spec:',
      '  steps: { s: { image: a } }',
    ),
  );
  assert.deepEqual(meta, [
    '4:9 "metadata.name" must be account/name in lower case (like sluice/git-commit-push), got a string ("Acme Hello")',
    '5:12 "metadata.version" must be a semantic version such as 1.0.0, got a number (1); quote it',
  ]);
});

test('a problem inside a JSON-string schema is placed on its own line in the file', () => {
  const issues = issuesOf(
    lines(
      ...HEADER,
      'spec:',
      '  arguments: |-',
      '    {',
      '      "type": "object",',
      '      "properties": {',
      '        "WHO": { "type": "strng" }',
      '      }',
      '    }',
      '  steps: { s: { image: a } }',
    ),
  );
  assert.deepEqual(issues, [
    '11:26 Schema type must be one of string, number, integer, boolean, object, array, null, got a string ("strng"); did you mean "string"?',
  ]);
});

test('JSON that does not parse is reported where the parser stopped', () => {
  const issues = issuesOf(
    lines(
      ...HEADER,
      'spec:',
      '  arguments: |-',
      '    {',
      '      "type": "object",',
      '    }',
      '  steps: { s: { image: a } }',
    ),
  );
  assert.equal(issues.length, 1);
  assert.match(issues[0]!, /^10:5 "spec\.arguments" is not valid JSON: /);
});

test('template placeholders are checked against the schema at their column', () => {
  const issues = issuesOf(
    lines(
      ...HEADER,
      'spec:',
      '  arguments:',
      '    type: object',
      '    additionalProperties: false',
      '    properties: { MESSAGE: { type: string } }',
      '  steps:',
      '    s:',
      '      image: sluice/busybox:1',
      '      environment:',
      "        - 'M=[[ .Arguments.MESAGE ]]'",
      '        - X=[[ if .Arguments.MESSAGE ]]',
      '      "[[ .Arguments.MESSAGE ]]": x',
    ),
  );
  assert.deepEqual(issues, [
    '15:14 The template uses argument "MESAGE", which "spec.arguments" does not declare; did you mean "MESSAGE"?',
    '16:13 "[[ if" has no "[[ end ]]"',
    '17:7 Placeholders are not allowed in field names, got "[[ .Arguments.MESSAGE ]]"; use them in values',
  ]);
});

test('a default that its own schema rejects is reported at the default', () => {
  const issues = issuesOf(
    lines(
      ...HEADER,
      'spec:',
      '  arguments:',
      '    properties:',
      '      PORT: { type: integer, minimum: 1, default: 0 }',
      '      OPTS:',
      '        properties:',
      '          level: { enum: [a, b], default: c }',
      '  steps: { s: { image: a } }',
    ),
  );
  assert.deepEqual(issues, [
    '9:51 The default of argument "PORT" must be at least 1, got a number (0)',
    '12:43 The default of argument "OPTS.level" must be one of "a", "b", got a string ("c")',
  ]);
});

test('spec needs steps; stepsTemplate is refused; returns only warns', () => {
  assert.deepEqual(issuesOf(lines(...HEADER, 'spec:', '  stepsTemplate: "x"', '  step: {}')), [
    '7:3 A step-type document needs "spec.steps", a map of at least one step (name: step)',
    '7:18 "spec.stepsTemplate" (a text template) is not supported by Sluice; write the template as "spec.steps"',
    '8:3 Unknown field "step" in "spec"; did you mean "steps"?',
  ]);
  const result = parseStepTypeDocument(
    lines(...HEADER, 'spec:', '  returns: { type: object }', '  steps: { s: { image: a } }'),
    'r.yml',
  );
  assert.ok(result.ok);
  assert.deepEqual(
    result.warnings.map((w) => `${w.severity} ${w.line}:${w.column} ${w.message}`),
    [
      'warning 7:12 "spec.returns" is not checked by Sluice; steps still export variables with cf_export',
    ],
  );
});

test('custom delimiters are used for the checks, and must differ', () => {
  const ok = parseStepTypeDocument(
    lines(
      ...HEADER,
      'spec:',
      "  delimiters: { left: '<%', right: '%>' }",
      '  steps: { s: { image: a, commands: ["[[ -f x ]] && echo <% .Arguments.X %>"] } }',
      '  arguments: { properties: { X: { type: string } } }',
    ),
    'd.yml',
  );
  assert.ok(ok.ok, JSON.stringify(ok));
  assert.deepEqual(
    issuesOf(
      lines(
        ...HEADER,
        'spec:',
        "  delimiters: { left: '%', right: '%' }",
        '  steps: { s: { image: a } }',
      ),
    ),
    ['7:15 "spec.delimiters" needs different left and right, got "%" twice'],
  );
});

test('YAML syntax errors come back as they are', () => {
  const text = lines(...HEADER, 'spec:', '  steps:', '    s: { image: a', '');
  const issues = issuesOf(text);
  assert.equal(issues.length > 0, true);
  const result = parseStepTypeDocument(text, 'hello.yml');
  assert.deepEqual(result.ok ? [] : result.issues.map((i) => [i.code, i.file]), [
    ['SLUICE_PIPELINE_YAML_SYNTAX', 'hello.yml'],
  ]);
});
