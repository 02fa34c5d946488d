import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import {
  startTestServer,
  agentClient,
  seedPipelines,
  ONE_KIND,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

async function setUp(t: TestServer) {
  const [one, two] = await seedPipelines(t, { pipelines: ['one', 'two'] });
  return { one: one!, two: two!, agent: await agentClient(t) };
}

databases.test(
  'an account limit holds builds of every pipeline back, and raising it lets them run',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { one, two } = await setUp(t);
      const account = await t.admin.call('updateAccount', { body: { maxConcurrentBuilds: 1 } });
      assert.equal(account.maxConcurrentBuilds, 1);
      const first = await t.admin.call('createBuild', { params: { pipelineId: one.id }, body: {} });
      const second = await t.admin.call('createBuild', {
        params: { pipelineId: two.id },
        body: {},
      });
      assert.equal(first.status, 'elected');
      assert.equal(second.status, 'pending');
      assert.match(second.reason ?? '', /the account allows 1 concurrent build/);
      await t.admin.call('updateAccount', { body: { maxConcurrentBuilds: 2 } });
      assert.equal(
        (await t.admin.call('getBuild', { params: { buildId: second.id } })).status,
        'elected',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'agents show online once they heartbeat, with the health they report; offline once stopped',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { agent } = await setUp(t);
      const before = (await t.admin.call('listAgents')).items[0]!;
      assert.equal(before.online, false);
      assert.equal(before.health, null);
      const check = {
        name: 'permissions',
        ok: false,
        message: 'cannot create pods in namespace ci',
      };
      const health = {
        healthy: false,
        message: 'missing permission',
        checks: [check],
        runtimes: [
          { name: 'local', healthy: true, checks: [{ name: 'docker', ok: true }] },
          { name: 'k8s', healthy: false, message: 'missing permission', checks: [check] },
        ],
      };
      await agent.call('agentHeartbeat', { body: { health, version: '0.1.0' } });
      const after = (await t.admin.call('listAgents')).items[0]!;
      assert.equal(after.online, true);
      assert.deepEqual(after.health, health, 'runtimes included');
      assert.equal(after.version, '0.1.0');
      // Its last report, as it stops: offline at once, its health kept.
      const stoppedAt = new Date().toISOString();
      await agent.call('agentHeartbeat', {
        body: { health: { ...health, stoppedAt }, version: '0.1.0' },
      });
      const stopped = (await t.admin.call('listAgents')).items[0]!;
      assert.equal(stopped.online, false);
      assert.equal(stopped.health?.stoppedAt, stoppedAt);
      // A new agent process with the same token: online again.
      await agent.call('agentHeartbeat', { body: { health, version: '0.1.0' } });
      assert.equal((await t.admin.call('listAgents')).items[0]!.online, true);
    } finally {
      await t.close();
    }
  },
);

databases.test('the OpenAPI document is served and describes the three APIs', async (database) => {
  const t = await startTestServer(database);
  try {
    const response = await fetch(`${t.url}/api/openapi.json`);
    assert.equal(response.status, 200);
    const doc = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    assert.equal(doc.openapi, '3.1.0');
    for (const path of [
      '/api/v1/builds',
      '/api/v1/pipelines/{pipelineId}/builds',
      '/api/agent/v1/tasks',
      '/api/engine/v1/log',
    ]) {
      assert.ok(doc.paths[path], `${path} is missing`);
    }
  } finally {
    await t.close();
  }
});
