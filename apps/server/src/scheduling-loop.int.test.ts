import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import type { Database } from '@sluice/db';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { agentClient, seedPipeline, startTestServer } from './server-harness.test-support.js';

const databases = useTestDatabases();

async function waitForStatus(database: Database, buildId: string, status: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const row = await database.db
      .selectFrom('builds')
      .select('status')
      .where('id', '=', buildId)
      .executeTakeFirstOrThrow();
    if (row.status === status) return;
    if (Date.now() > deadline) assert.fail(`build ${buildId} is still ${row.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

databases.test(
  'a build left pending while the server was down is scheduled when it starts, without a request',
  async (database) => {
    const config = { secretKey: exportSecretKey(generateSecretKey()) };
    const first = await startTestServer(database, config);
    let buildId: string;
    try {
      const pipeline = await seedPipeline(first);
      await agentClient(first);
      // With no runtime to run on, no pass can elect it: it stays pending.
      await database.db.updateTable('accounts').set({ default_runtime: null }).execute();
      const created = await first.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      assert.equal(created.status, 'pending');
      buildId = created.id;
    } finally {
      await first.close();
    }
    // What a crash between the build's commit and its pass leaves: a schedulable pending build.
    await database.db.updateTable('accounts').set({ default_runtime: 'local' }).execute();

    const second = await startTestServer(database, config);
    try {
      await waitForStatus(database, buildId, 'elected');
      const tasks = await database.db
        .selectFrom('tasks')
        .select('type')
        .where('build_id', '=', buildId)
        .execute();
      assert.deepEqual(
        tasks.map((t) => t.type),
        ['RunEngine'],
      );
    } finally {
      await second.close();
    }
  },
);
