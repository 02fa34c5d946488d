import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import {
  acknowledge,
  agentClient,
  LOCAL_RUNTIME,
  reportFailure,
  seedPipeline,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';

const databases = useTestDatabases();

databases.test('several agents polling at once never receive the same task', async (database) => {
  const t = await startTestServer(database);
  try {
    const pipeline = await seedPipeline(t);
    const agents = await Promise.all(['a1', 'a2', 'a3', 'a4'].map((name) => agentClient(t, name)));
    const builds = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.admin.call('createBuild', { params: { pipelineId: pipeline.id }, body: {} }),
      ),
    );
    const seen: string[] = [];
    for (let round = 0; round < 10 && seen.length < builds.length; round++) {
      const results = await Promise.all(
        agents.map((agent) => agent.call('pollTasks', { query: { wait: 0, max: 3 } })),
      );
      for (const result of results) seen.push(...result.tasks.map((task) => task.id));
    }
    assert.equal(seen.length, builds.length, 'every task delivered');
    assert.equal(new Set(seen).size, seen.length, 'no task delivered twice');
  } finally {
    await t.close();
  }
});

databases.test(
  'a retriable failure is retried with backoff; a final failure fails the build with its reason',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const agent = await agentClient(t, 'a1');
      const build = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const first = (await agent.call('pollTasks', { query: { wait: 0 } })).tasks[0]!;
      await reportFailure(agent, first, { reason: 'API server busy', isRetriable: true });
      await assert.rejects(
        acknowledge(agent, first),
        (err: unknown) => isSluiceError(err) && err.code === 'SLUICE_TASK_STALE_REVISION',
      );
      assert.deepEqual(
        (await agent.call('pollTasks', { query: { wait: 0 } })).tasks,
        [],
        'not before its backoff',
      );
      const second = (await agent.call('pollTasks', { query: { wait: 5 } })).tasks[0]!;
      assert.equal(second.id, first.id);
      assert.equal(second.attempt, 2);
      await reportFailure(agent, second, {
        reason: 'pods "engine-x" is forbidden',
        isRetriable: false,
      });
      const failed = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.equal(failed.status, 'error');
      assert.equal(
        failed.reason,
        'Task RunEngine failed after 2 attempt(s): pods "engine-x" is forbidden',
      );
      const { tasks } = await agent.call('pollTasks', { query: { wait: 0 } });
      assert.deepEqual(
        tasks.map((task) => [task.type, task.buildId]),
        [['StopEngine', build.id]],
        'the failed build is stopped',
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a RunEngine task is sealed at rest; handed out again after its lease, its engine token is the same and still works',
  async (database) => {
    let offset = 0;
    const t = await startTestServer(database, {}, { clock: () => Date.now() + offset });
    try {
      const pipeline = await seedPipeline(t);
      const agent = await agentClient(t, 'a1');
      const build = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const [first] = (await agent.call('pollTasks', { query: { wait: 0 } })).tasks;
      assert.equal(first?.type, 'RunEngine');
      const token = String(first.spec.engineToken);
      assert.match(token, /^slu_e_/);
      const rows = await database.db.selectFrom('tasks').select('spec').execute();
      assert.ok(!JSON.stringify(rows).includes(token), 'the engine token is stored in clear');
      const engine = t.client(token);
      await engine.call('engineEvents', {
        body: { events: [{ type: 'build-started', at: new Date().toISOString() }] },
      });

      offset += 60_001; // past the lease: the engine runs, its agent never reported
      const [again] = (await agent.call('pollTasks', { query: { wait: 0 } })).tasks;
      assert.equal(again?.id, first.id);
      assert.equal(again.attempt, 2);
      assert.deepEqual(again.spec, first.spec, 'the same token, server URL and build');
      await engine.call('engineHeartbeat', { body: {} });
      await acknowledge(agent, again);
      assert.equal(
        (await t.admin.call('getBuild', { params: { buildId: build.id } })).status,
        'running',
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'runtime environments: 422 naming the bad field, versions on patch, history, default, extends merged',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const bad = await fetch(`${t.url}/api/v1/runtime-environments`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer slu_u_test-bootstrap-token-0123456789',
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          name: 'k8s',
          spec: {
            metadata: { name: 'k8s' },
            runtimeScheduler: { type: 'KubernetesPod', terminationGracePeriodSecond: 30 },
          },
        }),
      });
      assert.equal(bad.status, 422);
      assert.match(await bad.text(), /terminationGracePeriodSecond/);
      const created = await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'local', spec: LOCAL_RUNTIME },
      });
      assert.equal(created.version, 1);
      const patched = await t.admin.call('patchRuntimeEnvironment', {
        params: { name: 'local' },
        body: { patch: { description: 'laptop' } },
      });
      assert.equal(patched.version, 2);
      assert.equal(patched.spec.description, 'laptop');
      const history = await t.admin.call('runtimeEnvironmentHistory', {
        params: { name: 'local' },
      });
      assert.deepEqual(
        history.items.map((i) => i.version),
        [2, 1],
      );
      assert.equal(
        (
          await t.admin.call('getRuntimeEnvironment', {
            params: { name: 'local' },
            query: { version: 1 },
          })
        ).spec.description,
        undefined,
      );
      const withDefault = await t.admin.call('setDefaultRuntimeEnvironment', {
        params: { name: 'local' },
      });
      assert.equal(withDefault.isDefault, true);
      await assert.rejects(
        t.admin.call('createRuntimeEnvironment', { body: { name: 'local', spec: LOCAL_RUNTIME } }),
        /already exists/,
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);
