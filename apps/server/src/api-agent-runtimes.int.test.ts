import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import { FINISHED_STATUSES, HEALTH_LIMITS, TRUNCATION_MARK } from '@sluice/protocol';
import type { Agent } from '@sluice/protocol';
import { foreignBuild } from './kubernetes-tasks.test-support.js';
import {
  ADMIN_TOKEN,
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
      await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'deleted', spec: KUBERNETES_RUNTIME },
      });
      const agent = await agentClient(t, 'a1', ['k8s', 'local', 'deleted']);
      await t.admin.call('deleteRuntimeEnvironment', { params: { name: 'deleted' } });
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
  "an agent's runtimes are replaced with the same token; unknown runtime (also at creation) or agent is 404",
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
      // Nor is an agent made for a runtime that does not exist: it would serve nothing.
      await assertFails(
        t.admin.call('createAgent', { body: { name: 'a2', runtimes: ['local', 'missing'] } }),
        { status: 404, code: 'SLUICE_RUNTIME_NOT_FOUND', message: /"missing"/ },
      );
      assert.deepEqual(
        (await t.admin.call('listAgents')).items.map((a) => a.name),
        ['a1'],
        'the refused agent was not made',
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
        { buildId: running.id, status: 'elected', finished: false, draining: false },
        { buildId: cancelled.id, status: 'terminated', finished: true, draining: false },
        { buildId: other, status: 'unknown', finished: true, draining: false },
        { buildId: 'bld_missing', status: 'unknown', finished: true, draining: false },
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
          { buildId: running.id, status: 'unknown', finished: true, draining: false },
          { buildId: cancelled.id, status: 'unknown', finished: true, draining: false },
        ],
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  "an agent's health as large as its request may be is stored and listed cut to its limits, the cuts marked; megabytes are refused",
  async (database) => {
    const t = await startTestServer(database);
    try {
      await seedPipeline(t);
      const agent = await agentClient(t);
      const check = (i: number) => ({ name: `check-${i}`, ok: true, message: 'm'.repeat(2_000) });
      const heartbeat = (message: string) =>
        agent.call('agentHeartbeat', {
          body: {
            health: {
              healthy: true,
              message,
              checks: Array.from({ length: 60 }, (_, i) => check(i)),
              runtimes: [{ name: 'local', healthy: true, checks: [check(0)] }],
            },
          },
        });
      // The route's body limit (docs/limits.md) refuses megabytes before they are read.
      await assert.rejects(
        heartbeat('x'.repeat(7 * 1024 * 1024)),
        /SLUICE_REQUEST_TOO_LARGE|larger than/,
      );
      // Under it, what is stored and listed is cut to the health's own limits.
      await heartbeat('x'.repeat(100 * 1024));
      const stored = await database.db.selectFrom('agents').select('health').executeTakeFirst();
      assert.ok(JSON.stringify(stored?.health).length <= HEALTH_LIMITS.json);
      const listing = await fetch(`${t.url}/api/v1/agents`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const text = await listing.text();
      assert.ok(text.length <= HEALTH_LIMITS.json + 1000, `GET /agents is ${text.length} bytes`);
      const [listed] = (JSON.parse(text) as { items: Agent[] }).items;
      const health = listed?.health;
      assert.equal(health?.message?.length, HEALTH_LIMITS.text);
      assert.ok(health?.message?.endsWith(TRUNCATION_MARK));
      assert.equal(health?.checks?.length, HEALTH_LIMITS.checks);
      assert.equal(health?.checks?.at(-1)?.name, 'more-checks');
      assert.match(health?.checks?.at(-1)?.message ?? '', /^51 more checks were left out/);
      assert.ok(health?.checks?.[0]?.message?.endsWith(TRUNCATION_MARK));
      assert.equal(health?.runtimes?.[0]?.checks?.[0]?.message?.length, HEALTH_LIMITS.text);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a runtime taken from an agent: its dispatched build is draining, not unknown, until it ends; new builds go to the runtime’s other agents',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'k8s', spec: KUBERNETES_RUNTIME },
      });
      const created = await t.admin.call('createAgent', {
        body: { name: 'a1', runtimes: ['local'] },
      });
      const a1 = t.client(created.token);
      const first = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const [engine] = (await a1.call('pollTasks', { query: { wait: 5 } })).tasks;
      assert.deepEqual([engine?.type, engine?.buildId], ['RunEngine', first.id]);
      await a1.call('reportTaskStatus', {
        params: { taskId: engine?.id ?? '' },
        body: { status: 'Success', statusRevision: (engine?.statusRevision ?? 0) + 1 },
      });

      await t.admin.call('updateAgent', {
        params: { agentId: created.agent.id },
        body: { runtimes: ['k8s'] },
      });
      const states = async (client: typeof a1, buildIds: string[]) =>
        (await client.call('agentBuildStates', { body: { buildIds } })).builds;
      const running = (await t.admin.call('getBuild', { params: { buildId: first.id } })).status;
      assert.deepEqual(await states(a1, [first.id]), [
        { buildId: first.id, status: running, finished: false, draining: true },
      ]);
      // Its reports about the build are still its own to make.
      await a1.call('agentBuildCache', {
        params: { buildId: first.id },
        body: {
          outcome: 'miss',
          reason: 'new volume',
          volume: null,
          claim: 'c',
          volumeCreatedAt: null,
          previousUseAt: null,
          mountCount: null,
          usedBytes: null,
          capacity: null,
          storageClass: null,
        },
      });

      // A new build of the runtime goes to an agent that serves it, and is none of a1's.
      const a2 = await agentClient(t, 'a2', ['local']);
      const second = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      assert.deepEqual((await a1.call('pollTasks', { query: { wait: 0 } })).tasks, []);
      const [taken] = (await a2.call('pollTasks', { query: { wait: 5 } })).tasks;
      assert.deepEqual([taken?.type, taken?.buildId], ['RunEngine', second.id]);
      assert.deepEqual(await states(a1, [second.id]), [
        { buildId: second.id, status: 'unknown', finished: true, draining: false },
      ]);

      // The engine's death is reported by the agent that ran it, and ends or retries the build.
      const answer = await a1.call('agentInfrastructureError', {
        params: { buildId: first.id },
        body: { pod: 'engine', reason: 'EngineExited', message: 'killed by SIGKILL' },
      });
      assert.ok(['retried', 'failed'].includes(answer.action), JSON.stringify(answer));
      if (answer.action === 'retried')
        await t.admin.call('cancelBuild', { params: { buildId: first.id } });
      const ended = (await t.admin.call('getBuild', { params: { buildId: first.id } })).status;
      assert.ok(FINISHED_STATUSES.includes(ended), ended);
      // Ended: a1 removes what is left of it.
      assert.deepEqual(await states(a1, [first.id]), [
        { buildId: first.id, status: ended, finished: true, draining: true },
      ]);
    } finally {
      await t.close();
    }
  },
);
