import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import {
  seedPipeline,
  startEngine,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

const PASSWORD = 'registry-password-Zq81';

const PUSH_TO_DOCKER_HUB = `version: '1.0'
steps:
  test:
    image: localhost:5000/acme/test:1
    commands: [make test]
  push:
    type: push
    candidate: acme/app
    registry: docker-hub
`;
const PUSH_TO_DEFAULT = `version: '1.0'
steps:
  build:
    type: build
    image_name: acme/app
    disable_push: false
`;

databases.test(
  'registries: created, replaced and deleted; passwords encrypted, given to the engine only',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const first = await t.admin.call('putRegistry', {
        params: { name: 'docker-hub' },
        body: { domain: 'registry.example.com:5000', username: 'ci', password: PASSWORD },
      });
      assert.deepEqual(
        [first.name, first.domain, first.username, first.hasPassword, first.default],
        ['docker-hub', 'registry.example.com:5000', 'ci', true, true],
        "the account's first registry is its default",
      );
      await t.admin.call('putRegistry', {
        params: { name: 'local' },
        body: { domain: 'localhost:5000' },
      });
      await t.admin.call('putRegistry', {
        params: { name: 'mirror' },
        body: { domain: 'mirror.example.com', default: true },
      });
      const listed = await t.admin.call('listRegistries');
      assert.deepEqual(
        listed.items.map((r) => [r.name, r.default, r.hasPassword]),
        [
          ['docker-hub', false, true],
          ['local', false, false],
          ['mirror', true, false],
        ],
      );
      const text = JSON.stringify(listed);
      assert.ok(!text.includes(PASSWORD), 'the API returned a password');

      const stored = await database.db
        .selectFrom('registries')
        .select('password_encrypted')
        .where('name', '=', 'docker-hub')
        .executeTakeFirstOrThrow();
      assert.ok(stored.password_encrypted, 'no password stored');
      assert.ok(!stored.password_encrypted.includes(PASSWORD), 'the password is stored in clear');

      // A push to docker-hub, a step image from localhost:5000: not the default, mirror.
      const pipeline = await seedPipeline(t, { yaml: PUSH_TO_DOCKER_HUB });
      const { engine } = await startEngine(t, pipeline.id);
      const build = await engine.call('engineBuild');
      assert.deepEqual(build.registries, [
        {
          name: 'docker-hub',
          domain: 'registry.example.com:5000',
          username: 'ci',
          password: PASSWORD,
          default: false,
        },
        { name: 'local', domain: 'localhost:5000', default: false },
      ]);
      assert.ok(!t.logs().includes(PASSWORD), 'the password was logged');
      // A build step that pushes and names no registry gets the default, and only it.
      await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: PUSH_TO_DEFAULT },
      });
      const pushing = await (
        await startEngine(t, pipeline.id, 'agent-2')
      ).engine.call('engineBuild');
      assert.deepEqual(pushing.registries, [
        { name: 'mirror', domain: 'mirror.example.com', default: true },
      ]);

      const replaced = await t.admin.call('putRegistry', {
        params: { name: 'mirror' },
        body: { domain: 'mirror2.example.com' },
      });
      assert.deepEqual([replaced.domain, replaced.default], ['mirror2.example.com', true]);
      await t.admin.call('deleteRegistry', { params: { name: 'docker-hub' } });
      await assert.rejects(
        t.admin.call('deleteRegistry', { params: { name: 'docker-hub' } }),
        (err: Error & { code?: string }) => err.code === 'SLUICE_REGISTRY_NOT_FOUND',
      );
      await assert.rejects(
        t.admin.call('putRegistry', {
          params: { name: 'bad' },
          body: { domain: 'https://registry.example.com/v2' },
        }),
        /host\[:port\]/,
      );
    } finally {
      await t.close();
    }
  },
);

const STEP_TYPE = `version: '1.0'
kind: step-type
metadata:
  name: acme/say
  version: 1.0.0
spec:
  arguments: |-
    {
      "type": "object",
      "required": ["WORDS"],
      "properties": { "WORDS": { "type": "string" } }
    }
  steps:
    say:
      image: alpine
      commands:
        - echo [[ .Arguments.WORDS ]]
`;

const TYPED_PIPELINE = `version: "1.0"
steps:
  hello:
    type: acme/say:1.0.0
    arguments:
      WORDS: hello
`;

databases.test(
  'step types: registered, validated with line:column, used to parse pipelines, given to the engine',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      await assert.rejects(
        t.admin.call('updatePipeline', {
          params: { pipelineId: pipeline.id },
          body: { yaml: TYPED_PIPELINE },
        }),
        /acme\/say/,
        'a typed step of an unregistered type does not validate',
      );

      const bad = STEP_TYPE.replace('kind: step-type', 'kind: step-type\nnonsense: 1');
      await assert.rejects(
        t.admin.call('putStepType', { body: { yaml: bad } }),
        (err: Error & { code?: string; details?: Record<string, unknown> }) => {
          assert.equal(err.code, 'SLUICE_STEP_TYPE_INVALID');
          const issues = (err.details?.details as { issues: { line: number }[] }).issues;
          assert.ok(
            issues.some((i) => i.line === 3),
            JSON.stringify(issues),
          );
          return true;
        },
      );

      const registered = await t.admin.call('putStepType', { body: { yaml: STEP_TYPE } });
      assert.deepEqual(
        [registered.name, registered.version, registered.createdBy],
        ['acme/say', '1.0.0', 'admin'],
      );
      const updated = await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: TYPED_PIPELINE },
      });
      assert.equal(updated.yaml, TYPED_PIPELINE);
      const { items } = await t.admin.call('listStepTypes');
      assert.deepEqual(
        items.filter((s) => s.origin === 'account').map((s) => [s.name, s.version]),
        [['acme/say', '1.0.0']],
      );
      const [own] = (await t.admin.call('getStepType', { params: { name: 'acme/say' } })).items;
      assert.deepEqual([own?.name, own?.origin], ['acme/say', 'account'], 'account/name as a path');

      const { build, engine } = await startEngine(t, pipeline.id);
      const [typed, ...template] = build.steps;
      assert.deepEqual([typed?.name, typed?.parent], ['hello', null]);
      assert.ok(template.length > 0, 'the typed step has no template steps');
      for (const step of template) assert.equal(step.parent, 'hello', step.name);
      const engineBuild = await engine.call('engineBuild');
      // The built-in step types come after the account's (api-built-in-step-types.int.test.ts).
      assert.deepEqual(
        engineBuild.stepTypes.filter((d) => d.source.startsWith('control plane')),
        [{ source: 'control plane: acme/say:1.0.0', text: STEP_TYPE }],
      );

      await t.admin.call('deleteStepType', { params: { name: 'acme/say', version: '1.0.0' } });
      await assert.rejects(
        t.admin.call('deleteStepType', { params: { name: 'acme/say', version: '1.0.0' } }),
        (err: Error & { code?: string }) => err.code === 'SLUICE_STEP_TYPE_NOT_FOUND',
      );
      assert.deepEqual(
        (await t.admin.call('listStepTypes')).items.filter((s) => s.origin === 'account'),
        [],
      );
    } finally {
      await t.close();
    }
  },
);
