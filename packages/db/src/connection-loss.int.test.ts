/**
 * Losing PostgreSQL while a query runs: the query fails with `SLUICE_DB_UNAVAILABLE`, and the
 * process lives on. (pg-pool listens for a client's errors only while it is idle; a connection
 * lost under a running query emitted `error` with no listener, which Node throws as an uncaught
 * exception: the server died with its database.) Once the database is back, queries work again.
 * The connection goes through a proxy the test cuts, so no shared server is stopped.
 * @module
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { startCuttableProxy } from '@sluice/testkit';
import { openDatabase } from './open-database.js';
import { TestDatabases } from './testing/test-databases.test-support.js';

test('a connection lost under a running query fails the query, not the process', async () => {
  const databases = TestDatabases.create({ kinds: ['postgres'] });
  const { url } = await databases.prepare('postgres');
  assert.ok(url !== undefined);
  const proxy = await startCuttableProxy(url);
  const warnings: string[] = [];
  const logger = {
    warn: (message: string) => void warnings.push(message),
    info: () => undefined,
    debug: () => undefined,
  };
  const database = await openDatabase({ url: proxy.url, migrate: false, logger });
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => void uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const running = sql`select pg_sleep(30)`.execute(database.db);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.cut();
    await assert.rejects(running, { code: 'SLUICE_DB_UNAVAILABLE' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(uncaught, [], 'the lost connection was thrown as an uncaught exception');
    assert.ok(warnings.includes('database connection failed'), warnings.join('; '));

    await proxy.restore();
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
    assert.deepEqual(rows, [{ one: 1 }]);
  } finally {
    process.off('uncaughtException', onUncaught);
    await database.close();
    await proxy.close();
    await databases.close();
  }
});
