/**
 * Two servers on one database starting at the same moment (two replicas rolled out together):
 * exactly one creates the admin and both start. The processes themselves, with builds, log
 * follow and a replica killed mid-burst, are in test/e2e/two-servers.e2e.test.ts.
 * @module
 */
import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { ADMIN_TOKEN, startTestServer } from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases();

databases.test(
  'two servers started at once on an empty database create one admin, and both start',
  async (database) => {
    const started = await Promise.allSettled([
      startTestServer(database),
      startTestServer(database),
      startTestServer(database),
    ]);
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      const failures = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
      assert.deepEqual(failures, [], 'every server started');
      const bootstrapped = servers.filter((t) => t.server.bootstrapToken !== undefined);
      assert.equal(bootstrapped.length, 1, 'exactly one server created the admin');
      assert.equal(bootstrapped[0]?.server.bootstrapToken, ADMIN_TOKEN);
      const accounts = await database.db.selectFrom('accounts').select('name').execute();
      assert.deepEqual(accounts, [{ name: 'default' }]);
      const tokens = await database.db.selectFrom('api_tokens').select('name').execute();
      assert.deepEqual(tokens, [{ name: 'bootstrap' }]);
      for (const t of servers) assert.equal((await t.admin.call('me')).user.name, 'admin');
    } finally {
      await Promise.all(servers.map((t: TestServer) => t.close()));
    }
  },
);
