import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { seedBuild } from './fixtures.test-support.js';
import { openDatabase } from './open-database.js';
import { useTestDatabases } from './testing/test-databases.test-support.js';

const databases = useTestDatabases({ kinds: ['postgres'] });

/** The prepared statements of the session `db` hands the next query to (one connection). */
async function preparedStatements(db: Parameters<typeof seedBuild>[0]): Promise<string[]> {
  return db.connection().execute(async (conn) => {
    // A parameter, so this very query is named too: it shows the session's names.
    const { rows } = await sql<{ name: string }>`
      select name from pg_prepared_statements where ${1} = 1 order by name`.execute(conn);
    return rows.map((row) => row.name);
  });
}

databases.test(
  'a query with parameters is a named prepared statement of its connection, made once',
  async ({ db }) => {
    const { buildId } = await seedBuild(db);
    await db.connection().execute(async (conn) => {
      for (let i = 0; i < 3; i += 1) {
        const row = await conn
          .selectFrom('builds')
          .select('id')
          .where('id', '=', buildId)
          .executeTakeFirstOrThrow();
        assert.equal(row.id, buildId);
      }
      const { rows } = await sql<{ statement: string }>`
        select statement from pg_prepared_statements where ${'x'} = 'x'`.execute(conn);
      const selects = rows.filter((r) => r.statement.includes('from "builds"'));
      assert.equal(selects.length, 1, JSON.stringify(rows));
    });
    assert.ok((await preparedStatements(db)).every((name) => name.startsWith('sluice_')));
  },
);

databases.test(
  'a table changed under a prepared statement: the query runs again unnamed, and stays so',
  async ({ db }) => {
    const { buildId } = await seedBuild(db);
    await db.connection().execute(async (conn) => {
      const read = () =>
        conn.selectFrom('builds').selectAll().where('id', '=', buildId).executeTakeFirstOrThrow();
      assert.equal((await read()).id, buildId);
      // What a migration run by another server does: the prepared `select *` now has the wrong
      // columns, which PostgreSQL refuses ("cached plan must not change result type").
      await sql`alter table builds add column added_later text`.execute(conn);
      const row = (await read()) as Record<string, unknown>;
      assert.equal(row.id, buildId);
      assert.ok('added_later' in row);
      assert.equal(((await read()) as Record<string, unknown>).id, buildId);
    });
  },
);

databases.test(
  'statements lost behind our back (a pooler switching sessions): the query runs unnamed, and so do all after it',
  async ({ db }) => {
    const { buildId } = await seedBuild(db);
    await db.connection().execute(async (conn) => {
      const read = () =>
        conn.selectFrom('builds').select('id').where('id', '=', buildId).executeTakeFirstOrThrow();
      assert.equal((await read()).id, buildId);
      // What PgBouncer in transaction mode does to the client: the next session has none of the
      // statements the driver believes it prepared ("prepared statement … does not exist").
      await sql`deallocate all`.execute(conn);
      assert.equal((await read()).id, buildId);
      assert.equal((await read()).id, buildId);
    });
    assert.deepEqual(await preparedStatements(db), [], 'nothing is prepared any more');
  },
);

test('with preparedStatements false every query runs unnamed', async () => {
  const db = (
    await openDatabase({ ...(await databases.prepare('postgres')), preparedStatements: false })
  ).db;
  try {
    const { buildId } = await seedBuild(db);
    for (let i = 0; i < 2; i += 1)
      assert.equal(
        (
          await db
            .selectFrom('builds')
            .select('id')
            .where('id', '=', buildId)
            .executeTakeFirstOrThrow()
        ).id,
        buildId,
      );
    assert.deepEqual(await preparedStatements(db), []);
  } finally {
    await db.destroy();
  }
});

databases.test(
  'a statement gone stale inside a transaction fails with its own reason; the next try runs unnamed',
  async ({ db }) => {
    const { buildId } = await seedBuild(db);
    await db.connection().execute(async (conn) => {
      const read = (executor: typeof conn) =>
        executor
          .selectFrom('builds')
          .selectAll()
          .where('id', '=', buildId)
          .executeTakeFirstOrThrow();
      await read(conn);
      await sql`alter table builds add column added_later text`.execute(conn);
      // Not "current transaction is aborted": the reason, so the caller knows to try again.
      await assert.rejects(
        conn.transaction().execute((trx) => read(trx)),
        /cached plan must not change result type/,
      );
      assert.equal((await conn.transaction().execute((trx) => read(trx))).id, buildId);
    });
  },
);
