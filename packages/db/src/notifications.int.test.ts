import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { InternalError } from '@sluice/errors';
import type { Database } from './database.js';
import { notify } from './notifications.js';
import { useTestDatabases } from './testing/test-databases.test-support.js';
import { withTransaction } from './transaction.js';

const databases = useTestDatabases();

/** Collects payloads; `next(p)` resolves when payload `p` arrives. */
function collector(): {
  got: string[];
  handler: (p: string) => void;
  next(p: string): Promise<void>;
} {
  const got: string[] = [];
  const waiters = new Map<string, () => void>();
  return {
    got,
    handler: (payload) => {
      got.push(payload);
      waiters.get(payload)?.();
    },
    next: (payload) =>
      got.includes(payload)
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no notification ${payload}`)), 10_000);
            waiters.set(payload, () => {
              clearTimeout(timer);
              resolve();
            });
          }),
  };
}

const tick = (ms = 100): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

databases.test(
  'NOTIFY inside a transaction arrives after commit, never after rollback',
  async (database) => {
    const { db } = database;
    const tasks = collector();
    await database.subscribe('tasks', tasks.handler);
    await withTransaction(db, async (trx) => {
      await notify(trx, 'tasks', { payload: 'committed' });
      await tick();
      assert.deepEqual(tasks.got, [], 'delivered before commit');
    });
    await tasks.next('committed');
    await assert.rejects(
      withTransaction(db, async (trx) => {
        await notify(trx, 'tasks', { payload: 'rolled-back' });
        throw new Error('abort');
      }),
      /abort/,
    );
    // Notifications from one session arrive in order: once the marker is here, the rolled-back
    // one would have been too.
    await notify(db, 'tasks', { payload: 'marker' });
    await tasks.next('marker');
    assert.deepEqual(tasks.got, ['committed', 'marker']);
  },
);

databases.test(
  'channels are separate, unsubscribe stops delivery, queries still run',
  async (database) => {
    const { db } = database;
    const a = collector();
    const b = collector();
    const offA = await database.subscribe('chan_a', a.handler);
    await database.subscribe('chan_b', b.handler);
    // A subscription must not hold PGlite's only connection.
    await withTransaction(db, async (trx) => {
      await trx.selectFrom('accounts').selectAll().execute();
      await notify(trx, 'chan_a', { payload: '1' });
    });
    await notify(db, 'chan_b', { payload: '2' });
    await Promise.all([a.next('1'), b.next('2')]);
    await offA();
    await notify(db, 'chan_a', { payload: 'after' });
    await notify(db, 'chan_b', { payload: 'marker' });
    await b.next('marker');
    assert.deepEqual([a.got, b.got], [['1'], ['2', 'marker']]);
  },
);

databases.test('notify with no payload, and a bad channel name', async (database) => {
  const c = collector();
  await database.subscribe('wake', c.handler);
  await notify(database.db, 'wake');
  await c.next('');
  await assert.rejects(notify(database.db, 'Bad-Name'), InternalError);
  await assert.rejects(database.subscribe('Bad-Name', c.handler), InternalError);
});

test(
  'PostgreSQL: the listener reconnects after its connection is killed',
  { timeout: 60_000 },
  async () => {
    const database: Database = await databases.open('postgres');
    try {
      const c = collector();
      await database.subscribe('tasks', c.handler);
      // This database's listener only: a server shared by test files has others' listeners.
      const killed = await sql<{ n: number }>`
      select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
      where pid <> pg_backend_pid() and datname = current_database()
        and query like 'LISTEN%'`.execute(database.db);
      assert.deepEqual(killed.rows, [{ n: 1 }]);
      // Keep notifying until the reconnected listener hears one.
      for (let i = 0; i < 100 && c.got.length === 0; i++) {
        await notify(database.db, 'tasks', { payload: `after-${i}` });
        await tick(100);
      }
      assert.match(c.got[0] ?? 'never reconnected', /^after-\d+$/);
    } finally {
      await database.close();
    }
  },
);
