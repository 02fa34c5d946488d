/**
 * A pipeline whose definition is in its repository, as the control plane serves it: a webhook
 * build names the push's commit for its engine to read the file at, and has no steps until then;
 * the engine's report is checked as a saved pipeline is (422 with each problem's line:column at
 * the file's path), recorded once with its commit, plans the build's steps, and answers with the
 * step types it names; a replay is answered the same, another definition refused. Its engine
 * starts with only the git integration that reads the file, and is given the credentials the
 * definition names with the answer that accepts it.
 * @module
 */
import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import {
  acknowledge,
  agentClient,
  LOCAL_RUNTIME,
  ONE_KIND,
  seedPipeline,
  SIMPLE_PIPELINE,
  startEngine,
  startTestServer,
} from './server-harness.test-support.js';
import { deliver, failure, fixture, setUp } from './trigger-deliveries.test-support.js';

const databases = useTestDatabases();
const PUSHED = '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c';
const BROKEN = 'version: "1.0"\nsteps:\n  a:\n    image: alpine\n    commands: {a: 1}\n';
const CLONES_OTHER_PUSHES_ECR = `version: '1.0'
steps:
  clone:
    type: git-clone
    repo: acme/tool
    git: other
  push:
    type: push
    candidate: acme/app
    registry: ecr
`;

databases.test(
  "a webhook build of a pipeline in its repository reads it at the push's commit; the engine's report plans its steps, once",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { pipeline, gitTrigger } = await setUp(t);
      await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'local', spec: LOCAL_RUNTIME },
      });
      await t.admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
      const source = { location: 'git' as const, repo: 'acme/widgets', path: '.sluice/ci.yml' };
      const moved = await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { specTemplate: source },
      });
      assert.deepEqual([moved.yaml, moved.specTemplate], ['', source]);
      const trigger = await gitTrigger({ repo: 'acme/widgets' });
      const pushed = await deliver(t, trigger.id, ['github', 'push', fixture('github-push')]);
      const buildId = pushed.body.buildId ?? '';
      const created = await t.admin.call('getBuild', { params: { buildId } });
      assert.deepEqual(created.definition, { ...source, revision: PUSHED, sha: null });
      assert.deepEqual(created.steps, [], 'planned once the file is read');

      const agent = await agentClient(t);
      const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
      const task = tasks.find((x) => x.buildId === buildId);
      assert.ok(task !== undefined, 'the build was elected');
      await acknowledge(agent, task);
      const engine = t.client(String(task.spec.engineToken));
      const given = await engine.call('engineBuild');
      assert.equal(given.yaml, '');
      assert.deepEqual(given.specTemplate, {
        repo: 'acme/widgets',
        path: '.sluice/ci.yml',
        revision: PUSHED,
        context: null,
        readsBuildCommit: false,
      });

      const refused = await failure(
        engine.call('engineDefinition', { body: { yaml: BROKEN, sha: PUSHED } }),
      );
      assert.equal(refused.code, 'SLUICE_PIPELINE_INVALID');
      assert.equal(refused.status, 422);
      assert.match(refused.message, /^\.sluice\/ci\.yml has 1 problem\(s\); first at 5:15/);
      const accepted = await engine.call('engineDefinition', {
        body: { yaml: SIMPLE_PIPELINE, sha: PUSHED },
      });
      assert.ok(Array.isArray(accepted.stepTypes));
      const planned = await t.admin.call('getBuild', { params: { buildId } });
      assert.equal(planned.definition.sha, PUSHED);
      assert.deepEqual(
        planned.steps.map((s) => [s.name, s.status]),
        [
          ['build', 'pending'],
          ['test', 'pending'],
        ],
      );
      const ran = await t.admin.call('getBuildDefinition', { params: { buildId } });
      assert.deepEqual([ran.yaml, ran.sha, ran.fileUrl], [SIMPLE_PIPELINE, PUSHED, null]);
      // With a GitHub integration (the account's default), the file at its commit is a link.
      await t.admin.call('createGitIntegration', {
        body: { name: 'hub', kind: 'github', token: 'hub-token-0123456789' },
      });
      const linked = await t.admin.call('getBuildDefinition', { params: { buildId } });
      assert.equal(linked.fileUrl, `https://github.com/acme/widgets/blob/${PUSHED}/.sluice/ci.yml`);

      // A replay (the answer was lost) is answered again; another definition is not taken.
      await engine.call('engineDefinition', { body: { yaml: SIMPLE_PIPELINE, sha: PUSHED } });
      const other = await failure(
        engine.call('engineDefinition', { body: { yaml: SIMPLE_PIPELINE, sha: 'a'.repeat(40) } }),
      );
      assert.deepEqual([other.code, other.status], ['SLUICE_BUILD_DEFINITION_RECORDED', 409]);
      const again = await t.admin.call('getBuild', { params: { buildId } });
      assert.equal(again.steps.length, 2, 'its steps planned once');

      // Back to a stored definition: the source goes, and so does the refusal of neither/both.
      const stored = await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: SIMPLE_PIPELINE },
      });
      assert.deepEqual([stored.yaml, stored.specTemplate], [SIMPLE_PIPELINE, null]);
      const both = await failure(
        t.admin.call('updatePipeline', {
          params: { pipelineId: pipeline.id },
          body: { yaml: SIMPLE_PIPELINE, specTemplate: source },
        }),
      );
      assert.deepEqual([both.code, both.status], ['SLUICE_PIPELINE_DEFINITION_TWICE', 400]);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a definition in the repository: its engine starts with the integration that reads it, and is given what the definition names when it is accepted',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      await t.admin.call('createGitIntegration', {
        body: { name: 'reader', kind: 'github', token: 'reader-token-0123456789' },
      });
      await t.admin.call('createGitIntegration', {
        body: { name: 'other', kind: 'gitea', url: 'https://gitea.example.com', token: 'o-token' },
      });
      await t.admin.call('putRegistry', {
        params: { name: 'ecr' },
        body: { domain: 'aws.example.com', username: 'u', password: 'ecr-password' },
      });
      await t.admin.call('putRegistry', {
        params: { name: 'mirror' },
        body: { domain: 'mirror.example.com', default: true },
      });
      const source = { location: 'git' as const, repo: 'acme/widgets', path: 'ci.yml' };
      await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { specTemplate: source },
      });
      const { engine } = await startEngine(t, pipeline.id);

      const given = await engine.call('engineBuild');
      assert.deepEqual(
        [given.gitIntegrations.map((i) => i.name), given.registries, given.clusters],
        [['reader'], [], []],
        'only the default integration, which reads the definition',
      );
      const accepted = await engine.call('engineDefinition', {
        body: { yaml: CLONES_OTHER_PUSHES_ECR, sha: PUSHED },
      });
      assert.deepEqual(
        [
          accepted.gitIntegrations.map((i) => [i.name, i.token]),
          accepted.registries.map((r) => [r.name, r.password]),
          accepted.clusters,
        ],
        [[['other', 'o-token']], [['ecr', 'ecr-password']], []],
        'what the definition names, and not the default registry it does not push to',
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);
