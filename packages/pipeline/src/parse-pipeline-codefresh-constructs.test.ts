/**
 * Constructs Codefresh accepts that real pipelines use (issue 17): accepted, carried in the
 * model, and, where Sluice does not run them, named in a warning that the engine repeats before
 * any step starts (`pipeline.notRun`). Positions counted by hand: line = index in the fixture
 * array + 1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from './parse-pipeline.js';
import { HEAD, parseOk } from './parse-pipeline.test-support.js';
import type { BuildStep, CompositionStep, FreestyleStep, ParallelStep } from './model.js';

function accepted(lines: string[]) {
  const result = parsePipeline(lines.join('\n') + '\n');
  if (!result.ok)
    assert.fail(result.issues.map((i) => `${i.line}:${i.column} ${i.message}`).join('\n'));
  return { pipeline: result.pipeline, issues: parseLines(lines).issues };
}

/** Every issue, errors too, as `line:column severity CODE message`. */
function parseLines(lines: string[]) {
  const result = parsePipeline(lines.join('\n') + '\n');
  const issues = result.issues.map(
    (i) =>
      `${i.line}:${i.column} ${i.severity} ${i.code.replace('SLUICE_PIPELINE_', '')} ${i.message}`,
  );
  return { issues };
}

test('step types Sluice does not run are accepted, and the build is to stop before its first step', () => {
  const { pipeline, issues } = accepted([
    ...HEAD,
    '  env:',
    '    type: launch-composition',
    '    composition: x',
    '  tag:',
    '    type: push-tag',
    '    candidate: app',
    '    tags: [v1]',
  ]);
  assert.deepEqual(issues, [
    '4:11 warning UNSUPPORTED Step type "launch-composition" is not run by Sluice: environments that outlive the build are not kept; the build stops before its first step',
    '7:11 warning UNSUPPORTED Step type "push-tag" is not run by Sluice: use a push step with "tags"; the build stops before its first step',
  ]);
  assert.deepEqual(
    pipeline.notRun.map((n) => [n.line, n.column, n.effect, n.path.join('.')]),
    [
      [4, 11, 'fails', 'steps.env.type'],
      [7, 11, 'fails', 'steps.tag.type'],
    ],
  );
});

test('a deploy step runs in sluice/kubectl:1 with its cluster, namespace, file or service and image', () => {
  const { pipeline, issues } = accepted([
    ...HEAD,
    '  ship:',
    '    type: deploy',
    '    kind: kubernetes',
    '    cluster: prod',
    '    namespace: apps',
    '    service: web',
    '    timestamp: true',
    '    candidate:',
    '      image: ${{build}}',
    '      registry: dockerhub',
  ]);
  assert.deepEqual(issues, []);
  const [ship] = pipeline.steps as [FreestyleStep];
  assert.deepEqual(
    [ship.type, ship.name, ship.image, ship.position.line],
    ['freestyle', 'ship', 'sluice/kubectl:1', 3],
  );
  assert.deepEqual(ship.environment, [
    ['SLUICE_DEPLOY_CLUSTER', 'prod'],
    ['SLUICE_DEPLOY_NAMESPACE', 'apps'],
    ['SLUICE_DEPLOY_SERVICE', 'web'],
    ['SLUICE_DEPLOY_IMAGE', '${{build}}'],
    ['SLUICE_DEPLOY_FILE', ''],
    ['SLUICE_DEPLOY_TIMESTAMP', 'true'],
  ]);
  assert.match(ship.commands?.[0] ?? '', /rollout status/);
  const broken = parsePipeline(
    [...HEAD, '  ship:', '    type: deploy', '    kind: ecs'].join('\n'),
  );
  assert.equal(broken.ok, false);
  assert.deepEqual(
    broken.issues.filter((i) => i.severity === 'error').map((i) => i.message),
    [
      'Missing required field "cluster" in deploy step "ship"',
      '"kind" must be one of "kubernetes", got the string "ecs"',
    ],
  );
});

test('fields Sluice does not run are accepted at the key, each saying what the build does', () => {
  const { pipeline, issues } = accepted([
    ...HEAD,
    '  test:',
    '    image: alpine',
    '    registry_context: gcr',
    '    debug: {phases: {before: true}}',
    '    user: nobody',
  ]);
  assert.deepEqual(issues, [
    '5:5 warning IGNORED Field "registry_context" of freestyle step "test" is not run by Sluice: registries are logged in from the registry settings, not chosen per step; the build runs without it',
    '6:5 warning IGNORED Field "debug" of freestyle step "test" is not run by Sluice: there is no step debugger; the build runs without it',
    '7:5 warning UNSUPPORTED Field "user" of freestyle step "test" is not run by Sluice: steps run as the user of their image; the build stops before its first step',
  ]);
  assert.deepEqual(
    pipeline.notRun.map((n) => n.effect),
    ['ignored', 'ignored', 'fails'],
  );
});

test('unknown fields of freestyle and composition steps are warnings with a suggestion, as Codefresh ignores them', () => {
  const { pipeline, issues } = accepted([
    ...HEAD,
    '  test:',
    '    image: alpine',
    '    comands: [make]',
    '    env: [CI=true]',
  ]);
  assert.deepEqual(issues, [
    '5:5 warning UNKNOWN_FIELD Unknown field "comands" in freestyle step "test" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "commands"?',
    '6:5 warning UNKNOWN_FIELD Unknown field "env" in freestyle step "test" (Codefresh ignores unknown fields here, and so does Sluice); did you mean "environment"?',
  ]);
  assert.deepEqual(
    pipeline.notRun.map((n) => n.effect),
    ['ignored', 'ignored'],
  );
  // Other step types still refuse a typo: Codefresh does too.
  const push = parsePipeline(
    [...HEAD, '  p:', '    type: push', '    candidate: x', '    tagz: [a]'].join('\n'),
  );
  assert.equal(push.ok, false);
});

test('a compose service takes keys Sluice does not know with a warning, as Codefresh does', () => {
  const { pipeline, issues } = accepted([
    ...HEAD,
    '  c:',
    '    type: composition',
    '    composition:',
    '      db: {image: postgres, privileged: true, portz: [1], mem_limit: 1g}',
    '    composition_candidates:',
    '      t: {image: alpine}',
  ]);
  assert.deepEqual(issues, [
    '6:29 warning UNSUPPORTED Field "privileged" of compose service is not run by Sluice: the engine does not run this compose setting yet; the build stops before its first step',
    '6:47 warning UNKNOWN_FIELD Unknown field "portz" in compose service (Codefresh ignores unknown fields here, and so does Sluice); did you mean "ports"?',
    '6:59 warning UNKNOWN_FIELD Unknown field "mem_limit" in compose service (Codefresh ignores unknown fields here, and so does Sluice)',
  ]);
  assert.deepEqual(
    pipeline.notRun.map((n) => [n.effect, n.path.join('.')]),
    [
      ['fails', 'steps.c.composition.db.privileged'],
      ['ignored', 'steps.c.composition.db.portz'],
      ['ignored', 'steps.c.composition.db.mem_limit'],
    ],
  );
  const [step] = pipeline.steps as [CompositionStep];
  assert.deepEqual(
    step.services.map((s) => s.name),
    ['db'],
  );
});

test('image-name and fail-fast are the same fields as image_name and fail_fast, placed where written', () => {
  const pipeline = parseOk([
    ...HEAD,
    '  image:',
    '    type: build',
    '    image-name: acme/app',
    '    fail-fast: false',
  ]);
  const [build] = pipeline.steps as [BuildStep];
  assert.equal(build.imageName, 'acme/app');
  assert.equal(build.failFast, false);
  const both = parsePipeline(
    [...HEAD, '  b:', '    type: build', '    image_name: a', '    image-name: b'].join('\n'),
  );
  assert.deepEqual(
    both.issues.map((i) => `${i.line}:${i.column} ${i.message}`),
    ['6:5 "image-name" and "image_name" are the same field; write it once'],
  );
});

test('retry.delay is any positive number of seconds', () => {
  const pipeline = parseOk([
    ...HEAD,
    '  a:',
    '    image: alpine',
    '    retry: {maxAttempts: 3, delay: 1}',
  ]);
  assert.equal(pipeline.steps[0]?.retry?.delaySeconds, 1);
});

test('when.steps: on approved and denied, and main_clone met from the start when the file has none', () => {
  const { pipeline, issues } = accepted([
    "version: '1.0'",
    'mode: parallel',
    'steps:',
    '  approve: {type: pending-approval}',
    '  ship:',
    '    image: alpine',
    '    when: {steps: [{name: approve, on: approved}, {name: main_clone, on: success}]}',
    '  undo:',
    '    image: alpine',
    '    when: {steps: [{name: approve, on: denied}]}',
    '  lint:',
    '    image: alpine',
    '    when: {steps: [{name: main_clone}]}',
  ]);
  assert.deepEqual(issues, [
    '7:58 warning IGNORED "when.steps" names "main_clone", the clone step Codefresh adds to a pipeline linked to a repository; Sluice adds none, so this dependency is met from the start',
    '13:27 warning IGNORED "when.steps" names "main_clone", the clone step Codefresh adds to a pipeline linked to a repository; Sluice adds none, so this dependency is met from the start',
  ]);
  const [, ship, undo, lint] = pipeline.steps;
  assert.deepEqual(ship?.when?.steps, {
    mode: 'all',
    dependencies: [{ step: 'approve', on: ['success'] }],
  });
  assert.deepEqual(undo?.when?.steps?.dependencies, [{ step: 'approve', on: ['denied'] }]);
  assert.equal(lint?.when?.steps, undefined);
});

test('a step holding steps: without a type is a parallel step', () => {
  const pipeline = parseOk([
    ...HEAD,
    '  checks:',
    '    title: Checks',
    '    steps:',
    '      lint: {image: alpine, commands: [make lint]}',
    '      unit: {image: alpine, commands: [make test]}',
  ]);
  const [checks] = pipeline.steps as [ParallelStep];
  assert.equal(checks.type, 'parallel');
  assert.deepEqual(
    checks.steps.map((s) => s.name),
    ['lint', 'unit'],
  );
});

test('post-step annotations and metadata become per-entity changes, in the order written', () => {
  const { pipeline, issues } = accepted([
    ...HEAD,
    '  test:',
    '    image: alpine',
    '    on_success:',
    '      annotations:',
    '        set:',
    '          - entity_type: build',
    "            annotations: [{tested: true}, {by: '${{CF_BUILD_INITIATOR}}'}, flaky]",
    "          - {entity_type: image, entity_id: '${{build.imageId}}', annotations: [{size: 12.5}]}",
    '        unset: [{annotations: [old]}]',
    '    on_fail:',
    "      metadata: {set: [{'${{build.imageId}}': [{CF_QUALITY: false}]}]}",
  ]);
  assert.deepEqual(issues, []);
  const [test] = pipeline.steps as [FreestyleStep];
  assert.deepEqual(test.postStep?.onSuccess?.annotations, [
    {
      entity: 'build',
      set: [
        ['tested', true],
        ['by', '${{CF_BUILD_INITIATOR}}'],
        ['flaky', null],
      ],
      unset: [],
    },
    { entity: 'image', image: '${{build.imageId}}', set: [['size', 12.5]], unset: [] },
    { entity: 'build', set: [], unset: ['old'] },
  ]);
  assert.deepEqual(test.postStep?.onFail?.annotations, [
    { entity: 'image', image: '${{build.imageId}}', set: [['CF_QUALITY', false]], unset: [] },
  ]);
  assert.equal(test.postStep?.onFinish, undefined);
});

test("another build's or a pipeline's annotations, in a post-step operation or a hook, are named as not kept; an image entry needs its image", () => {
  const { issues } = parseLines([
    ...HEAD,
    '  test:',
    '    image: alpine',
    '    on_finish:',
    '      annotations:',
    '        set:',
    '          - {entity_type: build, entity_id: 5ef5, annotations: [a]}',
    '          - {entity_type: pipeline, annotations: [{b: 1}]}',
    '          - {entity_type: image, annotations: [c]}',
    '          - {entity_type: build, annotations: [{d: [1]}]}',
    '    hooks:',
    '      on_success: {exec: {image: alpine}, annotations: {set: [{entity_type: pipeline, annotations: [e]}]}}',
  ]);
  assert.deepEqual(
    issues.map((i) => i.slice(0, 72)),
    [
      '8:34 warning IGNORED Annotating another build (entity_id) is not run by ',
      '9:14 warning IGNORED Annotations of entity_type "pipeline" is not run by',
      '10:13 error MISSING_FIELD An annotation entry with entity_type "image" n',
      '11:52 error INVALID_VALUE Annotation "d" must be text, a number, or true',
      '13:64 warning IGNORED Annotations of entity_type "pipeline" is not run b',
    ],
  );
});

test('names Sluice keeps for itself (sluice.*) may not be set or unset, in annotations, metadata or hooks; Sluice.x is another name', () => {
  const { issues } = parseLines([
    ...HEAD,
    '  test:',
    '    image: alpine',
    '    on_success:',
    '      annotations:',
    "        set: [{annotations: [{sluice.log-limit: ''}, {Sluice.mine: 1}]}]",
    '        unset: [{annotations: [sluice.log-limit]}]',
    "      metadata: {set: [{'${{IMAGE}}': [{sluice.x: 1}]}]}",
    '    hooks:',
    '      on_finish: {annotations: {unset: [{annotations: [sluice.y]}]}}',
  ]);
  const kept =
    'names starting with "sluice." are kept for Sluice\'s own annotations; choose another name';
  assert.deepEqual(issues, [
    `7:31 error INVALID_VALUE "sluice.log-limit": ${kept}`,
    `8:32 error INVALID_VALUE "sluice.log-limit": ${kept}`,
    `9:41 error INVALID_VALUE "sluice.x": ${kept}`,
    `11:56 error INVALID_VALUE "sluice.y": ${kept}`,
  ]);
});

test('a reserved name is quoted short in its message: a NUL byte escaped, a megabyte clipped', () => {
  const name = `sluice.\u0000${'a'.repeat(1_000_000)}`;
  const { issues } = parseLines([
    ...HEAD,
    '  test:',
    '    image: alpine',
    `    on_success: {annotations: {set: [{annotations: [${JSON.stringify(name)}]}]}}`,
  ]);
  assert.deepEqual(
    issues.map((issue) => issue.split(': names')[0]),
    ['5:53 error INVALID_VALUE "sluice.\\u0000aaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."'],
  );
});

test("hooks' annotations and metadata are read into the model as a step's on_success ones are", () => {
  const { pipeline } = accepted([
    'version: "1.0"',
    'hooks:',
    '  on_finish:',
    "    annotations: {set: [{annotations: [{finished: '${{CF_BUILD_ID}}'}, done]}]}",
    "    metadata: {unset: [{'${{IMAGE}}': [stale]}]}",
    '    exec: {image: alpine, commands: [echo done]}',
    'steps:',
    '  test:',
    '    image: alpine',
    '    hooks:',
    '      on_elected:',
    '        steps: {prepare: {image: alpine}}',
    '        annotations: {set: [{entity_type: image, entity_id: app, annotations: [{x: 1}]}]}',
  ]);
  assert.deepEqual(pipeline.hooks.onFinish?.annotations, [
    {
      entity: 'build',
      set: [
        ['finished', '${{CF_BUILD_ID}}'],
        ['done', null],
      ],
      unset: [],
    },
    { entity: 'image', image: '${{IMAGE}}', set: [], unset: ['stale'] },
  ]);
  assert.deepEqual(pipeline.steps[0]?.hooks.onElected?.annotations, [
    { entity: 'image', image: 'app', set: [['x', 1]], unset: [] },
  ]);
  assert.equal(pipeline.steps[0]?.hooks.onElected?.exec, undefined);
});

test('BuildKit fields, compose depends_on/links/labels, volumes and file compositions are in the model', () => {
  const { pipeline } = accepted([
    ...HEAD,
    '  image:',
    '    type: build',
    '    image_name: acme/app',
    '    buildkit: true',
    '    platform: linux/amd64',
    '    cache_from: [acme/app:main]',
    '    buildx: {builder: {driver: docker-container}}',
    '    build_version: v2',
    '  it:',
    '    type: composition',
    '    add_flow_volume_to_composition: true',
    '    composition:',
    "      version: '3'",
    '      volumes: {data: {}}',
    '      services:',
    '        db: {image: postgres, labels: [tier=db]}',
    '    composition_candidates:',
    '      test: {image: alpine, depends_on: [db], links: [db], command: make it}',
    '  from_file:',
    '    type: composition',
    '    composition: docker-compose.yml',
    '    composition_candidates:',
    '      test: {image: alpine}',
    '  svc:',
    '    image: alpine',
    '    services:',
    '      shared_host_network: true',
    '      composition: {redis: {image: redis}}',
  ]);
  const [image, it, fromFile, svc] = pipeline.steps as [
    BuildStep,
    CompositionStep,
    CompositionStep,
    FreestyleStep,
  ];
  assert.equal(image.buildkit, true);
  assert.equal(image.platform, 'linux/amd64');
  assert.deepEqual(image.cacheFrom, ['acme/app:main']);
  assert.equal(image.buildVersion, 'v2');
  assert.ok(image.buildx !== undefined);
  assert.equal(it.addFlowVolume, true);
  assert.deepEqual(it.volumes, ['data']);
  assert.deepEqual(it.services[0]?.labels, [['tier', 'db']]);
  assert.deepEqual(it.candidates[0]?.dependsOn, [{ name: 'db', condition: 'service_started' }]);
  assert.deepEqual(it.candidates[0]?.links, ['db']);
  assert.equal(fromFile.file, 'docker-compose.yml');
  assert.equal(svc.services?.sharedHostNetwork, true);
  // The engine runs BuildKit builds and these compositions, so none of them is named as not run.
  const notRun = pipeline.notRun.map((n) => n.path.join('.'));
  assert.deepEqual(
    notRun.filter((path) => /^steps\.(image|it|from_file)\./.test(path)),
    [],
  );
});

test('a services block takes depends_on and links as a composition does, with no warning', () => {
  const { pipeline, issues } = accepted([
    ...HEAD,
    '  test:',
    '    image: alpine',
    '    services:',
    '      composition:',
    '        api: {image: api, depends_on: {db: {condition: service_healthy}}, links: [db:database]}',
    '        db: {image: postgres, depends_on: [migrate]}',
    '        migrate: {image: migrate}',
  ]);
  assert.deepEqual(issues, []);
  const [test] = pipeline.steps as [FreestyleStep];
  const [api, db] = test.services?.services ?? [];
  assert.deepEqual(api?.dependsOn, [{ name: 'db', condition: 'service_healthy' }]);
  assert.deepEqual(api?.links, ['db:database']);
  assert.deepEqual(db?.dependsOn, [{ name: 'migrate', condition: 'service_started' }]);
});
