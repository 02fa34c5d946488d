import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import { foreignBuild } from './kubernetes-tasks.test-support.js';
import {
  agentClient,
  KUBERNETES_RUNTIME,
  seedPipeline,
  startTestServer,
} from './server-harness.test-support.js';

const databases = useTestDatabases();

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

databases.test(
  "build states: the status in the agent's account, unknown (and finished) otherwise",
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
    } finally {
      await t.close();
    }
  },
);
