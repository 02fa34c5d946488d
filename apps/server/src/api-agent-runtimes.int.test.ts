import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import { foreignBuild } from './kubernetes-tasks.test-support.js';
import {
  agentClient,
  KUBERNETES_RUNTIME,
  seedPipeline,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

databases.test(
  "an agent learns its runtimes' kind and namespace; one that cannot be resolved is left out",
  async (database) => {
    const t = await startTestServer(database);
    try {
      await seedPipeline(t);
      await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'k8s', spec: KUBERNETES_RUNTIME },
      });
      const agent = await agentClient(t, 'a1', ['k8s', 'local', 'deleted']);
      const { runtimes } = await agent.call('agentRuntimes');
      assert.deepEqual(runtimes, [
        { name: 'k8s', kind: 'kubernetes', namespace: 'builds' },
        { name: 'local', kind: 'local', namespace: null },
      ]);
      await assert.rejects(
        t.admin.call('agentRuntimes'),
        (err: unknown) => isSluiceError(err) && err.category === 'not-allowed',
        'a user token cannot ask',
      );
    } finally {
      await t.close();
    }
  },
);

/** The call fails with this HTTP status and code; its message for people matches `message`. */
async function assertFails(
  call: Promise<unknown>,
  expected: { status: number; code: string; message?: RegExp },
): Promise<void> {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(isSluiceError(err), String(err));
    assert.deepEqual([err.details?.status, err.code], [expected.status, expected.code]);
    if (expected.message !== undefined) assert.match(err.message, expected.message);
    return true;
  });
}

databases.test(
  "an agent's runtimes are replaced with the same token; unknown runtime or agent is 404",
  async (database) => {
    const t = await startTestServer(database);
    try {
      await seedPipeline(t);
      await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'k8s', spec: KUBERNETES_RUNTIME },
      });
      const created = await t.admin.call('createAgent', {
        body: { name: 'a1', runtimes: ['local'] },
      });
      const agent = t.client(created.token);
      const agentId = created.agent.id;

      const updated = await t.admin.call('updateAgent', {
        params: { agentId },
        body: { runtimes: ['local', 'k8s'] },
      });
      assert.deepEqual(
        [updated.id, updated.name, updated.runtimes],
        [agentId, 'a1', ['local', 'k8s']],
      );
      assert.deepEqual((await agent.call('agentRuntimes')).runtimes, [
        { name: 'local', kind: 'local', namespace: null },
        { name: 'k8s', kind: 'kubernetes', namespace: 'builds' },
      ]);
      assert.deepEqual((await agent.call('pollTasks', { query: { wait: 0 } })).tasks, []);

      await assertFails(
        t.admin.call('updateAgent', { params: { agentId }, body: { runtimes: ['k8s', 'nope'] } }),
        { status: 404, code: 'SLUICE_RUNTIME_NOT_FOUND', message: /"nope"/ },
      );
      await assertFails(
        t.admin.call('updateAgent', {
          params: { agentId: 'agt_missing' },
          body: { runtimes: ['k8s'] },
        }),
        { status: 404, code: 'SLUICE_AGENT_NOT_FOUND', message: /agt_missing/ },
      );
      await assertFails(
        t.admin.call('updateAgent', { params: { agentId }, body: { runtimes: [] } }),
        { status: 400, code: 'SLUICE_REQUEST_INVALID' },
      );
      await assertFails(
        agent.call('updateAgent', { params: { agentId }, body: { runtimes: ['k8s'] } }),
        {
          status: 403,
          code: 'SLUICE_AUTH_WRONG_SCOPE',
        },
      );

      const [listed] = (await t.admin.call('listAgents')).items;
      assert.deepEqual(listed?.runtimes, ['local', 'k8s'], 'refused changes left it as it was');
      const narrowed = await t.admin.call('updateAgent', {
        params: { agentId },
        body: { runtimes: ['k8s'] },
      });
      assert.deepEqual(narrowed.runtimes, ['k8s']);
      assert.deepEqual((await agent.call('agentRuntimes')).runtimes, [
        { name: 'k8s', kind: 'kubernetes', namespace: 'builds' },
      ]);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  "build states: the status of builds on the agent's runtimes, unknown (and finished) otherwise",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const agent = await agentClient(t);
      const running = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const cancelled = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      await t.admin.call('cancelBuild', { params: { buildId: cancelled.id } });
      const other = await foreignBuild(database);
      const { builds } = await agent.call('agentBuildStates', {
        body: { buildIds: [running.id, cancelled.id, other, 'bld_missing'] },
      });
      assert.deepEqual(builds, [
        { buildId: running.id, status: 'elected', finished: false },
        { buildId: cancelled.id, status: 'terminated', finished: true },
        { buildId: other, status: 'unknown', finished: true },
        { buildId: 'bld_missing', status: 'unknown', finished: true },
      ]);
      assert.deepEqual(
        (await agent.call('agentBuildStates', { body: { buildIds: [] } })).builds,
        [],
      );
      // Same account, another runtime: it learns nothing about builds it was never given.
      await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'k8s', spec: KUBERNETES_RUNTIME },
      });
      const stranger = await agentClient(t, 'agent-2', ['k8s']);
      assert.deepEqual(
        (
          await stranger.call('agentBuildStates', {
            body: { buildIds: [running.id, cancelled.id] },
          })
        ).builds,
        [
          { buildId: running.id, status: 'unknown', finished: true },
          { buildId: cancelled.id, status: 'unknown', finished: true },
        ],
      );
    } finally {
      await t.close();
    }
  },
);
