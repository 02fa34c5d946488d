import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { useTestDatabases } from './testing/test-databases.test-support.js';

const databases = useTestDatabases();

/**
 * Whether the transaction of `trx` began in the message of the statement asking: PostgreSQL
 * stamps a statement when its message arrives and a transaction when its `begin` runs, so the
 * two are equal only when `begin` travelled with the statement.
 */
const BEGAN_WITH_IT = sql<{ together: boolean }>`select now() = statement_timestamp() as together`;

/** pg_locks lists the locks of every database of the server, and test files share a server. */
const THIS_DATABASE = sql`database = (select oid from pg_database where datname = current_database())`;

databases.test(
  "a transaction's begin travels with its first statement when that has no parameters",
  async ({ db }) => {
    const together = await db.transaction().execute(async (trx) => {
      const { rows } = await BEGAN_WITH_IT.execute(trx);
      return rows[0]?.together;
    });
    assert.equal(together, true);
    const apart = await db.transaction().execute(async (trx) => {
      await sql`select ${1}::int as one`.execute(trx);
      const { rows } = await BEGAN_WITH_IT.execute(trx);
      return rows[0]?.together;
    });
    assert.equal(apart, false, 'a first statement with parameters follows its own begin');
  },
  // PGlite's clock ticks in milliseconds, so a begin and a statement that came apart within the
  // same one look together there; the wrapper that holds the begin is the same for both kinds.
  { kinds: ['postgres'] },
);

databases.test(
  'a held begin still opens the transaction: an xact lock taken by the first statement lasts to the commit',
  async ({ db, kind }) => {
    let held: boolean | undefined;
    await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(7071)`.execute(trx);
      // PGlite has one session, so the lock is asked of this one: a session's own xact lock is
      // re-entrant, and what shows it is held is pg_locks.
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_locks
        where locktype = 'advisory' and objid = 7071 and granted and ${THIS_DATABASE}`.execute(trx);
      held = rows[0]?.n === 1;
    });
    assert.equal(held, true, `${kind}: the lock is held after its statement`);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_locks
      where locktype = 'advisory' and objid = 7071 and ${THIS_DATABASE}`.execute(db);
    assert.equal(rows[0]?.n, 0, 'and released by the commit');
  },
);

databases.test(
  'an empty transaction, and one whose first statement fails, end cleanly',
  async ({ db }) => {
    assert.equal(
      await db.transaction().execute(() => Promise.resolve('nothing sent')),
      'nothing sent',
    );
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`select 1/0`.execute(trx);
      }),
      /division by zero/,
    );
    // The connection is usable again, outside any transaction.
    const { rows } = await sql<{ ok: number }>`select 1 as ok`.execute(db);
    assert.equal(rows[0]?.ok, 1);
    await assert.rejects(
      db.transaction().execute(() => Promise.reject(new Error('given up before any statement'))),
      /given up/,
    );
    const after = await db.transaction().execute(async (trx) => {
      const { rows: r } = await BEGAN_WITH_IT.execute(trx);
      return r[0]?.together;
    });
    assert.equal(after, true);
  },
);
