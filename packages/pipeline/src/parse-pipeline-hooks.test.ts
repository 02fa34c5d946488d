/**
 * Hooks as Codefresh's "Hooks in pipelines" page writes them: annotations and metadata alone,
 * each shorter form (no `exec`, no `image`, a list of commands, `exec` as a list, `exec`
 * holding typed `steps` or `fail_fast`), the old post-step syntax mixed with hooks (refused),
 * hooks on a parallel step (refused). Positions counted by hand: line = index in the fixture +
 * 1; the comment above a row names the character meant.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_HOOK_IMAGE } from './hook-forms.js';
import { parsePipeline } from './parse-pipeline.js';
import { HEAD, parseOk, testRejections } from './parse-pipeline.test-support.js';
import { catalogFromDefinitions } from './step-types/load-step-type-catalog.js';
import type { RejectedRow } from './parse-pipeline.test-support.js';

test('a hook of only annotations or metadata runs no container and keeps what it sets', () => {
  const pipeline = parseOk([
    "version: '1.0'",
    'hooks:',
    '  on_elected:',
    '    annotations: {set: [{annotations: [{started: true}]}]}',
    'steps:',
    '  made:',
    '    image: alpine',
    '    hooks:',
    '      on_success:',
    "        metadata: {set: [{'${{IMAGE}}': [{CF_QUALITY: true}]}]}",
    '      on_finish:',
    '        annotations: {unset: [{annotations: [started]}]}',
  ]);
  assert.deepEqual(pipeline.hooks.onElected, {
    exec: undefined,
    steps: undefined,
    mode: 'sequential',
    failFast: true,
    annotations: [{ entity: 'build', set: [['started', true]], unset: [] }],
  });
  const hooks = pipeline.steps[0]?.hooks;
  assert.equal(hooks?.onSuccess?.exec, undefined);
  assert.deepEqual(hooks?.onSuccess?.annotations, [
    { entity: 'image', image: '${{IMAGE}}', set: [['CF_QUALITY', true]], unset: [] },
  ]);
  assert.deepEqual(hooks?.onFinish?.annotations, [
    { entity: 'build', set: [], unset: ['started'] },
  ]);
});

test("the page's shorter forms: no exec, no image, a list of commands, exec as a list, fail_fast in exec", () => {
  const pipeline = parseOk([
    "version: '1.0'",
    'hooks:',
    '  on_elected:',
    '    exec:',
    '      - echo "Pipeline starting"',
    '  on_finish:',
    '    image: notifications:master',
    '    commands:',
    '      - ./send_workflow_finished.js',
    "  on_fail: ['echo failed', 'echo again']",
    'steps:',
    '  build:',
    '    image: alpine',
    '    hooks:',
    '      on_elected:',
    '        exec: {image: alpine:3.9, fail_fast: false, commands: [exit 1]}',
    '      on_success:',
    '        exec:',
    '          - echo "built"',
    '        annotations: {set: [{entity_type: build, annotations: [{status: Success}]}]}',
    '      on_fail:',
    '        commands: [echo no image]',
  ]);
  const exec = (commands: string[], image = DEFAULT_HOOK_IMAGE) => ({
    image,
    commands,
    shell: 'sh',
    environment: [],
  });
  assert.equal(DEFAULT_HOOK_IMAGE, 'alpine');
  assert.deepEqual(pipeline.hooks.onElected?.exec, exec(['echo "Pipeline starting"']));
  assert.deepEqual(
    pipeline.hooks.onFinish?.exec,
    exec(['./send_workflow_finished.js'], 'notifications:master'),
  );
  assert.deepEqual(pipeline.hooks.onFail?.exec, exec(['echo failed', 'echo again']));
  const hooks = pipeline.steps[0]?.hooks;
  assert.deepEqual(hooks?.onElected?.exec, exec(['exit 1'], 'alpine:3.9'));
  assert.equal(hooks?.onElected?.failFast, false);
  assert.deepEqual(hooks?.onSuccess?.exec, exec(['echo "built"']));
  assert.equal(hooks?.onSuccess?.annotations?.length, 1);
  assert.deepEqual(hooks?.onFail?.exec, exec(['echo no image']));
});

const NOTIFY = `version: '1.0'
kind: step-type
metadata:
  name: notify
  version: 0.0.8
spec:
  arguments:
    type: object
    required: [TEXT]
    properties:
      TEXT: {type: string}
  steps:
    send:
      image: alpine
      commands: ['echo [[ .Arguments.TEXT ]]']
`;

test('typed steps in a hook, under steps (one named "exec") and under exec.steps, as the page writes them', () => {
  const stepTypes = catalogFromDefinitions(
    [{ name: 'notify', version: '0.0.8', source: 'memory', text: NOTIFY }],
    'memory',
  );
  const pipeline = parseOk(
    [
      "version: '1.0'",
      'hooks:',
      '  on_elected:',
      '    exec:',
      '      steps:',
      '        slack_pending:',
      '          type: notify:0.0.8',
      "          arguments: {TEXT: '*Build Started* now'}",
      '  on_finish:',
      '    steps:',
      '      exec:',
      '        type: notify:0.0.8',
      "        arguments: {TEXT: '${{CF_BUILD_ID}} done'}",
      'steps:',
      '  a:',
      '    image: alpine',
    ],
    { stepTypes },
  );
  const elected = pipeline.hooks.onElected;
  assert.equal(elected?.exec, undefined, 'exec holding only steps runs no container');
  assert.deepEqual(
    elected?.steps?.map((s) => [s.name, s.type]),
    [['slack_pending', 'group']],
  );
  const finish = pipeline.hooks.onFinish?.steps?.[0];
  assert.deepEqual([finish?.name, finish?.type], ['exec', 'group']);
  const sent = finish?.type === 'group' ? finish.steps[0] : undefined;
  assert.deepEqual(sent?.type === 'freestyle' ? sent.commands : [], ['echo ${{CF_BUILD_ID}} done']);
});

test('a hook typed step that is not in the catalog is named where it is written', () => {
  const result = parsePipeline(
    [
      "version: '1.0'",
      'hooks:',
      '  on_finish:',
      '    steps:',
      '      exec: {type: slack-notifier:0.0.8, arguments: {SLACK_TEXT: hi}}',
      'steps:',
      '  a: {image: alpine}',
    ].join('\n') + '\n',
  );
  assert.equal(result.ok, false);
  const [issue] = result.issues;
  assert.deepEqual([issue?.line, issue?.path.join('.')], [5, 'hooks.on_finish.steps.exec.type']);
  assert.match(issue?.message ?? '', /slack-notifier/);
});

const rows: RejectedRow[] = [
  {
    name: 'an empty hook, and a hook left null',
    // "  on_finish: " is 13 characters.
    yaml: [
      "version: '1.0'",
      'hooks:',
      '  on_elected: {mode: parallel}',
      '  on_finish: ~',
      'steps:',
    ],
    issues: [
      '3:15 INVALID_VALUE Hook "on_elected" does nothing: give it at least one of "exec", "steps", "annotations", "metadata" (hooks.on_elected)',
      '4:14 INVALID_VALUE "on_finish" must be a map, got nothing (hooks.on_finish)',
      '5:7 INVALID_VALUE "steps" must be a map of steps, got nothing (steps)',
    ],
  },
  {
    name: 'old-style annotations and the same hook setting annotations, as the page shows (both positions named)',
    yaml: [
      ...HEAD,
      '  test:',
      '    image: alpine',
      '    on_success:',
      '      annotations: {set: [{entity_type: build, annotations: [{status: success}]}]}',
      '    on_fail:',
      '      metadata: {set: [{app: [{ok: false}]}]}',
      '    commands: [echo block]',
      '    hooks:',
      '      on_success:',
      '        annotations: {set: [{entity_type: build, annotations: [{status: success}]}]}',
      '      on_fail: {exec: [echo failed]}',
      '      on_finish: {metadata: {set: [{app: [done]}]}}',
    ],
    issues: [
      '6:7 INVALID_VALUE Annotations or metadata of "on_success" are set both the old way (codefresh.yml:6:7) and in the hook (codefresh.yml:12:9); Codefresh refuses the two together: move "on_success.annotations" under "hooks.on_success" (steps.test.on_success.annotations)',
    ],
  },
  {
    name: 'a container beside annotations without exec, and steps written twice',
    // "      on_fail: {exec: {" is 23 characters.
    yaml: [
      ...HEAD,
      '  a:',
      '    image: alpine',
      '    hooks:',
      '      on_success:',
      '        image: alpine',
      '        commands: [echo done]',
      '        annotations: {set: [{annotations: [done]}]}',
      '      on_fail: {exec: {steps: {b: {image: x}}}, steps: {c: {image: y}}}',
    ],
    issues: [
      '7:9 INVALID_VALUE Field "image" of hook "on_success" goes under "exec": a hook with "annotations" takes its container as "exec" (exec: {image, commands}) (steps.a.hooks.on_success.image)',
      '8:9 INVALID_VALUE Field "commands" of hook "on_success" goes under "exec": a hook with "annotations" takes its container as "exec" (exec: {image, commands}) (steps.a.hooks.on_success.commands)',
      '10:24 INVALID_VALUE "steps" is written both in the hook and in its "exec"; write it once (steps.a.hooks.on_fail.exec.steps)',
    ],
  },
  {
    name: 'problems inside the shorter forms, shown where they are written',
    // "  on_fail: [echo a, " is 20 characters; "    shell: " 11; "    exec: {fail_fast: " 22.
    yaml: [
      "version: '1.0'",
      'hooks:',
      '  on_fail: [echo a, {b: 1}]',
      '  on_finish:',
      '    image: alpine',
      '    shell: zsh',
      '  on_success:',
      '    exec: {fail_fast: maybe, commands: [x]}',
      'steps:',
      '  a: {image: alpine}',
    ],
    issues: [
      '3:21 INVALID_VALUE Item 1 of "commands" must be a string, got a map; quote text that holds ": " or write it as a block scalar (|-) (hooks.on_fail.1)',
      '6:12 INVALID_VALUE "shell" must be one of "sh", "bash", got the string "zsh"; did you mean "sh"? (hooks.on_finish.shell)',
      '8:23 INVALID_VALUE "fail_fast" must be true or false, got the string "maybe" (hooks.on_success.exec.fail_fast)',
    ],
  },
  {
    name: 'hooks on a step holding steps: a parallel step without "type" (the page: not supported there)',
    yaml: [
      ...HEAD,
      '  q:',
      '    hooks: {on_finish: [echo q]}',
      '    steps:',
      '      b: {image: alpine, hooks: {on_finish: [echo b]}}',
    ],
    issues: [
      '4:5 INVALID_VALUE A parallel step cannot have "hooks" (Codefresh does not support hooks on parallel steps); put them on the steps inside it (steps.q.hooks)',
    ],
  },
];

testRejections(rows, { withPath: true });
