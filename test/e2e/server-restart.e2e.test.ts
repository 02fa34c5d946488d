import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestDatabases } from '@sluice/db/testing';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { kill, startServer } from './cli-harness.js';
import { acknowledgeTasks, createLocalRuntime, createPipelines } from './control-plane-seed.js';

const databases = TestDatabases.create();
after(() => databases.close());
const TOKEN = 'slu_u_restart-test-token-0123456789';
const SECRET_KEY = exportSecretKey(generateSecretKey());
const serverEnv = {
  SLUICE_BOOTSTRAP_TOKEN: TOKEN,
  SLUICE_SECRET_KEY: SECRET_KEY,
  SLUICE_TASK_LEASE_MS: '1500',
};
const PIPELINE = 'version: "1.0"\nsteps:\n  a:\n    image: alpine\n    commands: ["true"]\n';

/** A local runtime as default, one pipeline, one agent, and `builds` queued builds; the agent token. */
async function seed(admin: SluiceClient, builds: number): Promise<string> {
  await createLocalRuntime(admin, { isDefault: true });
  const { app = '' } = await createPipelines(admin, 'web', { app: PIPELINE });
  const { token } = await admin.call('createAgent', { body: { name: 'a1', runtimes: ['local'] } });
  for (let i = 0; i < builds; i++)
    await admin.call('createBuild', { params: { pipelineId: app }, body: {} });
  return token;
}

for (const kind of databases.kinds) {
  test(
    `a server killed with SIGKILL mid-dispatch comes back with its data and delivers every task (${kind})`,
    { timeout: 180_000 },
    async () => {
      const target = await databases.prepare(kind);
      let server = await startServer(target, serverEnv);
      let agentToken: string;
      const acknowledged: string[] = [];
      const inFlight: string[] = [];
      try {
        agentToken = await seed(createClient({ baseUrl: server.url, token: TOKEN }), 10);
        const agent = createClient({ baseUrl: server.url, token: agentToken });
        const first = (await agent.call('pollTasks', { query: { wait: 0, max: 3 } })).tasks;
        await acknowledgeTasks(agent, first);
        acknowledged.push(...first.map((t) => t.id));
        // Two more are handed out but never acknowledged: the server dies mid-dispatch.
        inFlight.push(
          ...(await agent.call('pollTasks', { query: { wait: 0, max: 2 } })).tasks.map((t) => t.id),
        );
      } finally {
        await kill(server);
      }
      server = await startServer(target, serverEnv);
      try {
        const admin = createClient({ baseUrl: server.url, token: TOKEN });
        assert.equal(
          (await admin.call('listBuilds', { query: { limit: 50 } })).items.length,
          10,
          'every build survived',
        );
        const agent = createClient({ baseUrl: server.url, token: agentToken });
        const delivered: string[] = [];
        for (let round = 0; round < 20 && delivered.length < 7; round++) {
          const { tasks } = await agent.call('pollTasks', { query: { wait: 2, max: 10 } });
          await acknowledgeTasks(agent, tasks);
          delivered.push(...tasks.map((t) => t.id));
        }
        assert.equal(delivered.length, 7, `delivered after the restart: ${delivered.join(', ')}`);
        assert.equal(new Set(delivered).size, 7, 'no task delivered twice');
        assert.deepEqual(
          delivered.filter((id) => acknowledged.includes(id)),
          [],
          'an acknowledged task came back',
        );
        for (const id of inFlight)
          assert.ok(
            delivered.includes(id),
            `the unacknowledged task ${id} was not handed out again after its lease`,
          );
        assert.deepEqual((await agent.call('pollTasks', { query: { wait: 0 } })).tasks, []);
      } finally {
        await kill(server);
      }
    },
  );
}
