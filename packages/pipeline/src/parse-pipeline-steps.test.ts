/**
 * The runnable step types beyond freestyle and git-clone (build, push, composition,
 * pending-approval), the fields every step now carries (timeout, retry, hooks,
 * strict_fail_fast) and services blocks, as they reach the model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HEAD, parseOk } from './parse-pipeline.test-support.js';
import type { ApprovalStep, BuildStep, CompositionStep, FreestyleStep, PushStep } from './model.js';

test('a build step with its defaults: Dockerfile, the branch tag, lowercase, no push', () => {
  const [build] = parseOk([...HEAD, '  image:', '    type: build', '    image_name: acme/app'])
    .steps as [BuildStep];
  assert.equal(build.type, 'build');
  assert.equal(build.imageName, 'acme/app');
  assert.deepEqual(build.dockerfile, { path: 'Dockerfile' });
  assert.deepEqual(build.tags, ['${{CF_BRANCH_TAG_NORMALIZED}}']);
  assert.equal(build.tagPolicy, 'lowercase');
  assert.deepEqual(build.buildArguments, []);
  assert.equal(build.noCache, false);
  assert.equal(build.disablePush, true, 'Sluice pushes only when disable_push: false is written');
});

test('a build step with every field it runs', () => {
  const [path, inline] = parseOk([
    ...HEAD,
    '  image:',
    '    type: build',
    '    image_name: acme/app',
    '    dockerfile: docker/Dockerfile.ci',
    '    tag: ${{CF_SHORT_REVISION}}',
    "    tags: [latest, '${{CF_SHORT_REVISION}}']",
    '    tag_policy: original',
    '    build_arguments: [NODE=20, EMPTY=, URL=a=b]',
    '    target: runtime',
    '    no_cache: true',
    '    no_cf_cache: true',
    '    registry: local',
    '    disable_push: false',
    '  inline:',
    '    type: build',
    '    image_name: acme/tool',
    '    dockerfile:',
    '      content: |',
    '        FROM alpine',
  ]).steps as [BuildStep, BuildStep];
  assert.deepEqual(path.dockerfile, { path: 'docker/Dockerfile.ci' });
  assert.deepEqual(path.tags, ['${{CF_SHORT_REVISION}}', 'latest'], 'tag first, no repeats');
  assert.equal(path.tagPolicy, 'original');
  assert.deepEqual(path.buildArguments, [
    ['NODE', '20'],
    ['EMPTY', ''],
    ['URL', 'a=b'],
  ]);
  assert.equal(path.target, 'runtime');
  assert.equal(path.noCache, true);
  assert.equal(path.registry, 'local');
  assert.equal(path.disablePush, false);
  assert.deepEqual(inline.dockerfile, { content: 'FROM alpine\n' });
});

test('a push step: tags default to latest, credentials and registry kept', () => {
  const [plain, full] = parseOk([
    ...HEAD,
    '  plain:',
    '    type: push',
    '    candidate: ${{image}}',
    '  full:',
    '    type: push',
    '    candidate: ${{image}}',
    '    tags: [v1, v1.2]',
    '    image_name: acme/released',
    '    registry: local',
    "    credentials: {username: bot, password: '${{TOKEN}}'}",
  ]).steps as [PushStep, PushStep];
  assert.deepEqual(plain.tags, ['latest']);
  assert.equal(plain.registry, undefined);
  assert.equal(full.candidate, '${{image}}');
  assert.deepEqual(full.tags, ['v1', 'v1.2']);
  assert.equal(full.imageName, 'acme/released');
  assert.equal(full.registry, 'local');
  assert.deepEqual(full.credentials, { username: 'bot', password: '${{TOKEN}}' });
});

test('a composition step, in compose-file form and as a bare map of services', () => {
  const [file, bare] = parseOk([
    ...HEAD,
    '  file:',
    '    type: composition',
    '    composition:',
    "      version: '3'",
    '      services:',
    '        db:',
    '          image: postgres:16',
    '          environment: [POSTGRES_PASSWORD=x]',
    '          ports: [5432]',
    '          command: postgres -c fsync=off',
    '          entrypoint: docker-entrypoint.sh "two words"',
    '          working_dir: /srv',
    '          volumes: ["${{CF_VOLUME_NAME}}:/codefresh/volume"]',
    '    composition_candidates:',
    '      test:',
    '        image: ${{image}}',
    '        command: [npm, test]',
    '        environment: {DB: db}',
    '    composition_variables: [TAG=1]',
    '    environment: [CI=true]',
    '  bare:',
    '    type: composition',
    '    composition:',
    '      cache: {image: redis}',
    '    composition_candidates:',
    '      test: {image: alpine}',
  ]).steps as [CompositionStep, CompositionStep];
  assert.deepEqual(file.services, [
    {
      name: 'db',
      image: 'postgres:16',
      command: ['sh', '-c', 'postgres -c fsync=off'],
      entrypoint: ['docker-entrypoint.sh', 'two words'],
      environment: [['POSTGRES_PASSWORD', 'x']],
      workingDirectory: '/srv',
      volumes: ['${{CF_VOLUME_NAME}}:/codefresh/volume'],
      ports: ['5432'],
      dependsOn: [],
      links: [],
      labels: [],
    },
  ]);
  assert.deepEqual(file.candidates[0]?.command, ['npm', 'test']);
  assert.deepEqual(file.candidates[0]?.environment, [['DB', 'db']]);
  assert.deepEqual(file.variables, [['TAG', '1']]);
  assert.deepEqual(file.environment, [['CI', 'true']]);
  assert.deepEqual(
    bare.services.map((s) => [s.name, s.image, s.command]),
    [['cache', 'redis', undefined]],
  );
});

test('a pending-approval step: 168 hours and denied by default', () => {
  const [plain, set] = parseOk([
    ...HEAD,
    '  plain:',
    '    type: pending-approval',
    '  set:',
    '    type: pending-approval',
    '    timeout: {duration: 30, timeUnit: minutes, finalState: approved}',
  ]).steps as [ApprovalStep, ApprovalStep];
  assert.equal(plain.timeoutMs, 168 * 3_600_000);
  assert.equal(plain.finalState, 'denied');
  assert.equal(set.timeoutMs, 30 * 60_000);
  assert.equal(set.finalState, 'approved');
});

test('timeout, retry and strict_fail_fast on a step, with their defaults', () => {
  const pipeline = parseOk([
    "version: '1.0'",
    'strict_fail_fast: true',
    'steps:',
    '  a:',
    '    image: alpine',
    '    timeout: 1.5h',
    '    retry: {maxAttempts: 3}',
    '  b:',
    '    image: alpine',
    '    timeout: 2h30m',
    "    retry: {maxAttempts: '10', delay: 60, exponentialFactor: 2.5}",
    '    strict_fail_fast: false',
    '  c:',
    '    image: alpine',
    '    timeout: 0',
  ]);
  const [a, b, c] = pipeline.steps as [FreestyleStep, FreestyleStep, FreestyleStep];
  assert.equal(pipeline.strictFailFast, true);
  assert.equal(a.timeoutMs, 5_400_000);
  assert.deepEqual(a.retry, { maxAttempts: 3, delaySeconds: 5, exponentialFactor: 1 });
  assert.equal(a.strictFailFast, true, 'the root value is the default');
  assert.equal(b.timeoutMs, 9_000_000);
  assert.deepEqual(b.retry, { maxAttempts: 10, delaySeconds: 60, exponentialFactor: 2.5 });
  assert.equal(b.strictFailFast, false);
  assert.equal(c.timeoutMs, undefined, '0 is no limit');
  assert.equal(c.retry, undefined);
});

test('hooks of the pipeline and of a step: exec or steps, mode and fail_fast', () => {
  const pipeline = parseOk([
    "version: '1.0'",
    'hooks:',
    '  on_elected:',
    '    exec:',
    '      image: alpine',
    '      shell: bash',
    '      commands: [echo start]',
    '      environment: [A=1]',
    '    fail_fast: false',
    '  on_finish:',
    '    mode: parallel',
    '    steps:',
    '      cleanup:',
    '        image: alpine',
    '        commands: [rm -rf out]',
    '      notify:',
    '        image: alpine',
    'steps:',
    '  test:',
    '    image: alpine',
    '    hooks:',
    '      on_fail:',
    '        exec: {image: alpine, commands: [cat log]}',
    '      on_success:',
    '        steps:',
    '          cleanup:',
    '            image: alpine',
  ]);
  assert.deepEqual(pipeline.hooks.onElected, {
    exec: { image: 'alpine', commands: ['echo start'], shell: 'bash', environment: [['A', '1']] },
    steps: undefined,
    mode: 'sequential',
    failFast: false,
  });
  const finish = pipeline.hooks.onFinish;
  assert.equal(finish?.mode, 'parallel');
  assert.equal(finish?.failFast, true);
  assert.deepEqual(
    finish?.steps?.map((s) => [s.name, s.type, s.position.line]),
    [
      ['cleanup', 'freestyle', 13],
      ['notify', 'freestyle', 16],
    ],
  );
  const [test] = pipeline.steps as [FreestyleStep];
  assert.deepEqual(test.hooks.onFail?.exec?.commands, ['cat log']);
  // A hook's steps are a scope of their own: "cleanup" may be used in two hooks.
  assert.equal(test.hooks.onSuccess?.steps?.[0]?.name, 'cleanup');
});

test('services: pipeline blocks with readiness defaults, and steps using them by name', () => {
  const pipeline = parseOk([
    "version: '1.0'",
    'services:',
    '  name: db',
    '  composition:',
    '    postgres:',
    '      image: postgres:16',
    '      ports: [5432]',
    '  readiness:',
    '    image: postgres:16',
    '    commands: [pg_isready -h postgres]',
    '    timeoutSeconds: 30',
    '  setup:',
    '    image: postgres:16',
    '    commands: [psql -h postgres -c "create table t (x int)"]',
    'steps:',
    '  test:',
    '    image: alpine',
    '    services: [db]',
    '  cache:',
    '    image: alpine',
    '    services:',
    '      composition:',
    '        redis: {image: redis}',
  ]);
  assert.deepEqual(pipeline.services, [
    {
      name: 'db',
      services: [
        {
          name: 'postgres',
          image: 'postgres:16',
          command: undefined,
          entrypoint: undefined,
          environment: [],
          workingDirectory: undefined,
          volumes: [],
          ports: ['5432'],
          dependsOn: [],
          links: [],
          labels: [],
        },
      ],
      readiness: {
        image: 'postgres:16',
        commands: ['pg_isready -h postgres'],
        periodSeconds: 10,
        timeoutSeconds: 30,
        initialDelaySeconds: 0,
        successThreshold: 1,
        failureThreshold: 3,
      },
      setup: { image: 'postgres:16', commands: ['psql -h postgres -c "create table t (x int)"'] },
      references: [],
    },
  ]);
  const [test, cache] = pipeline.steps as [FreestyleStep, FreestyleStep];
  assert.deepEqual(test.services, { services: [], references: ['db'] });
  assert.deepEqual(
    cache.services?.services.map((s) => s.name),
    ['redis'],
  );
  assert.equal(cache.services?.name, undefined);
});

test('pipeline services may be a list of blocks', () => {
  const pipeline = parseOk([
    "version: '1.0'",
    'services:',
    '  - name: db',
    '    composition: {pg: {image: postgres}}',
    '  - name: cache',
    '    composition: {redis: {image: redis}}',
    'steps:',
    '  test:',
    '    image: alpine',
    '    services: [cache, db]',
  ]);
  assert.deepEqual(
    pipeline.services.map((s) => s.name),
    ['db', 'cache'],
  );
});
