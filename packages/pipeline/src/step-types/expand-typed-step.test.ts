import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ISSUE_CODES } from '../pipeline-issue.js';
import type { IssuePath } from '../pipeline-issue.js';
import { expandTypedStep } from './expand-typed-step.js';
import { catalogFromDefinitions, combineStepTypeCatalogs } from './load-step-type-catalog.js';
import type { StepTypeCatalog, StepTypeDefinition } from './step-type-catalog.js';
import { STEP_TYPE_ISSUE_CODES } from './step-type-codes.js';

function hello(version: string, name = 'acme/hello'): StepTypeDefinition {
  const text = [
    "version: '1.0'",
    'kind: step-type',
    'metadata:',
    `  name: ${name}`,
    `  version: ${version}`,
    'spec:',
    '  arguments:',
    '    type: object',
    '    additionalProperties: false',
    '    required: [WHO]',
    '    properties:',
    '      WHO: { type: string }',
    '      LOUD: { type: boolean, default: false }',
    '      TAGS: { type: array, items: { type: string }, default: [] }',
    '  steps:',
    '    greet:',
    '      image: sluice/busybox:1',
    "      environment: ['WHO=[[ .Arguments.WHO ]]']",
    "      commands: ['echo hello [[ if .Arguments.LOUD ]]LOUDLY [[ end ]]$WHO v" + version + "']",
    '    tags:',
    "      image: 'sluice/busybox:1'",
    "      cmd: '[[ .Arguments.TAGS ]]'",
  ].join('\n');
  return { name, version, source: `/catalog/${name}-${version}.yml`, text };
}

interface Reported {
  path: string;
  message: string;
  code: string | undefined;
  severity: string;
}

function expand(type: string, args: unknown, catalog: StepTypeCatalog | undefined) {
  const reported: Reported[] = [];
  const reporter = {
    report(
      path: IssuePath,
      message: string,
      options: { code?: string; severity?: 'error' | 'warning' } = {},
    ) {
      reported.push({
        path: path.join('.'),
        message,
        code: options.code,
        severity: options.severity ?? 'error',
      });
    },
  };
  const result = expandTypedStep(
    { stepName: 'say', path: ['steps', 'say'], type, arguments: args },
    catalog,
    reporter,
  );
  return { result, reported };
}

const catalog = catalogFromDefinitions(
  [hello('1.0.0'), hello('1.2.0'), hello('2.0.0-rc.1')],
  'control plane',
);

test('a pinned typed step expands into its template with arguments and defaults filled in', () => {
  const { result, reported } = expand(
    'acme/hello:1.0.0',
    { WHO: '${{USER}}', LOUD: true },
    catalog,
  );
  assert.deepEqual(reported, []);
  assert.deepEqual(result, {
    stepType: 'acme/hello:1.0.0',
    steps: {
      greet: {
        image: 'sluice/busybox:1',
        environment: ['WHO=${{USER}}'],
        commands: ['echo hello LOUDLY $WHO v1.0.0'],
      },
      tags: { image: 'sluice/busybox:1', cmd: [] },
    },
  });
});

test('without a version the newest release is used, with a warning saying how to pin it', () => {
  const { result, reported } = expand('acme/hello', { WHO: 'x' }, catalog);
  assert.equal(result?.stepType, 'acme/hello:1.2.0');
  assert.deepEqual(reported, [
    {
      path: 'steps.say.type',
      message: 'Step type "acme/hello" uses the newest version 1.2.0; pin it as acme/hello:1.2.0',
      code: STEP_TYPE_ISSUE_CODES.unpinned,
      severity: 'warning',
    },
  ]);
});

test('a version that does not exist lists the versions that do', () => {
  const { result, reported } = expand('acme/hello:1.1.0', { WHO: 'x' }, catalog);
  assert.equal(result, undefined);
  assert.deepEqual(reported, [
    {
      path: 'steps.say.type',
      message: 'Step type "acme/hello" has no version 1.1.0; available: 1.0.0, 1.2.0, 2.0.0-rc.1',
      code: ISSUE_CODES.unknownStepType,
      severity: 'error',
    },
  ]);
});

test('a version that is not semver is refused before looking', () => {
  const { reported } = expand('acme/hello:latest', {}, catalog);
  assert.equal(
    reported[0]?.message,
    'Step type "acme/hello:latest" names version "latest", which is not a semantic version; write acme/hello:1.2.3',
  );
});

test('an unknown step type names where it looked, a close name, and how to add one', () => {
  const { result, reported } = expand('acme/helo', {}, catalog);
  assert.equal(result, undefined);
  assert.equal(reported.length, 1);
  assert.equal(reported[0]?.path, 'steps.say.type');
  assert.equal(reported[0]?.code, ISSUE_CODES.unknownStepType);
  assert.equal(
    reported[0]?.message,
    'Step type "acme/helo" was not found; looked in: control plane; did you mean "acme/hello"?',
  );
  const none = expand('acme/hello', {}, undefined);
  assert.equal(
    none.reported[0]?.message,
    'Step type "acme/hello" was not found; looked in: nowhere (no step-type catalog was given); to add it, put a "kind: step-type" document with that metadata.name in .sluice/step-types/ of the repository or in a directory given with --step-types',
  );
});

test('argument problems are placed under arguments, a missing required one at arguments or the step', () => {
  const wrong = expand('acme/hello:1.2.0', { WHO: 5, LOUD: 'yes', COLOR: 'red' }, catalog);
  assert.equal(wrong.result, undefined);
  assert.deepEqual(
    wrong.reported.map((r) => [r.path, r.code, r.message]),
    [
      [
        'steps.say.arguments.WHO',
        ISSUE_CODES.invalidValue,
        'Argument "WHO" of step type "acme/hello" must be a string, got a number (5)',
      ],
      [
        'steps.say.arguments.LOUD',
        ISSUE_CODES.invalidValue,
        'Argument "LOUD" of step type "acme/hello" must be a boolean (true or false), got a string ("yes")',
      ],
      [
        'steps.say.arguments.COLOR',
        ISSUE_CODES.unknownField,
        'Step type "acme/hello" has no argument "COLOR"; it takes "WHO", "LOUD", "TAGS"',
      ],
    ],
  );
  const empty = expand('acme/hello:1.2.0', {}, catalog);
  assert.deepEqual(
    empty.reported.map((r) => [r.path, r.code, r.message]),
    [
      [
        'steps.say.arguments',
        ISSUE_CODES.missingField,
        'Step type "acme/hello" requires argument "WHO"',
      ],
    ],
  );
  const absent = expand('acme/hello:1.2.0', undefined, catalog);
  assert.equal(absent.reported[0]?.path, 'steps.say');
});

test('a broken document in the catalog is reported at the step, naming its file and line', () => {
  const broken: StepTypeDefinition = {
    ...hello('3.0.0'),
    text: hello('3.0.0').text.replace('WHO: { type: string }', 'WHO: { type: strin }'),
  };
  const { result, reported } = expand(
    'acme/hello:3.0.0',
    { WHO: 'x' },
    catalogFromDefinitions([broken], 'x'),
  );
  assert.equal(result, undefined);
  assert.deepEqual(
    reported.map((r) => [r.path, r.code]),
    [['steps.say.type', STEP_TYPE_ISSUE_CODES.invalid]],
  );
  assert.match(
    reported[0]?.message ?? '',
    /^Step type "acme\/hello:3\.0\.0" is broken: \/catalog\/acme\/hello-3\.0\.0\.yml:12:20: Schema type must be one of/,
  );
});

test('a definition filed under another name than its document declares is broken', () => {
  const misfiled = { ...hello('1.0.0'), name: 'acme/other' };
  const { reported } = expand(
    'acme/other:1.0.0',
    { WHO: 'x' },
    catalogFromDefinitions([misfiled], 'x'),
  );
  assert.match(
    reported[0]?.message ?? '',
    /is broken: the document declares itself as "acme\/hello:1\.0\.0"$/,
  );
});

test('a bare name finds a step type named without an account', () => {
  const plain = catalogFromDefinitions([hello('0.1.0', 'hello')], 'x');
  assert.equal(expand('hello:0.1.0', { WHO: 'x' }, plain).result?.stepType, 'hello:0.1.0');
});

test('a step type declared with anyVersion stands in for every version, with a warning', () => {
  const plain = hello('1.0.0', 'git-commit');
  const text = plain.text.replace('  version: 1.0.0', '  version: 1.0.0\n  anyVersion: true');
  const standIn = catalogFromDefinitions([{ ...plain, text }], 'x');
  const { result, reported } = expand('git-commit:0.2.0', { WHO: 'x' }, standIn);
  assert.equal(result?.stepType, 'git-commit:1.0.0');
  assert.deepEqual(reported, [
    {
      path: 'steps.say.type',
      message:
        'Step type "git-commit" has no version 0.2.0; git-commit:1.0.0 from /catalog/git-commit-1.0.0.yml stands in for it (it accepts any version)',
      code: STEP_TYPE_ISSUE_CODES.standIn,
      severity: 'warning',
    },
  ]);
  assert.deepEqual(expand('git-commit:1.0.0', { WHO: 'x' }, standIn).reported, []);
  // Without the flag the version must exist.
  const strict = catalogFromDefinitions([plain], 'x');
  assert.equal(expand('git-commit:0.2.0', { WHO: 'x' }, strict).result, undefined);
});

test('catalogs combine in order: the first holding a name@version wins', () => {
  const repository = { ...hello('1.2.0'), source: 'repo' };
  const combined = combineStepTypeCatalogs([catalogFromDefinitions([repository], 'repo'), catalog]);
  assert.deepEqual(combined.locations, ['repo', 'control plane']);
  assert.equal(combined.find('acme/hello', '1.2.0')?.source, 'repo');
  assert.equal(combined.find('acme/hello', '1.0.0')?.source, '/catalog/acme/hello-1.0.0.yml');
  assert.equal(combined.find('acme/hello')?.source, 'repo');
  assert.deepEqual(
    combined.list().map((d) => `${d.version} ${d.source}`),
    [
      '1.2.0 repo',
      '1.0.0 /catalog/acme/hello-1.0.0.yml',
      '2.0.0-rc.1 /catalog/acme/hello-2.0.0-rc.1.yml',
    ],
  );
});

test('files the catalog could not read are named when a step type is not found', () => {
  const unreadable: StepTypeCatalog = {
    locations: ['.sluice/step-types'],
    find: () => undefined,
    problems: [
      {
        severity: 'error',
        code: ISSUE_CODES.yamlSyntax,
        message: 'Bad indentation',
        path: [],
        file: '.sluice/step-types/hello.yml',
        line: 2,
        column: 3,
      },
    ],
  };
  const { reported } = expand('acme/hello:1.0.0', {}, unreadable);
  assert.match(
    reported[0]?.message ?? '',
    /^Step type "acme\/hello" was not found; looked in: \.sluice\/step-types; these files there could not be read: \.sluice\/step-types\/hello\.yml:2:3: Bad indentation; to add it/,
  );
});
