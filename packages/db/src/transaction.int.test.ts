import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError, InternalError } from '@sluice/errors';
import { seedBuild } from './fixtures.test-support.js';
import { openPgliteFromTemplate } from './testing/pglite-template.js';
import { useTestDatabases } from './testing/test-databases.test-support.js';
import { withTransaction } from './transaction.js';

const databases = useTestDatabases();

databases.test(
  'withTransaction commits, and rolls back when the callback throws',
  async ({ db }) => {
    const { accountId } = await seedBuild(db);
    const result = await withTransaction(db, async (trx) => {
      await trx
        .insertInto('users')
        .values({ id: 'u1', account_id: accountId, name: 'ada' })
        .execute();
      return 'done';
    });
    assert.equal(result, 'done');
    const failure = new Error('callback failed');
    await assert.rejects(
      withTransaction(db, async (trx) => {
        await trx
          .insertInto('users')
          .values({ id: 'u2', account_id: accountId, name: 'bob' })
          .execute();
        throw failure;
      }),
      (err: unknown) => err === failure,
    );
    const names = await db.selectFrom('users').select('name').execute();
    assert.deepEqual(names, [{ name: 'ada' }]);
  },
);

databases.test('a database error inside rolls back the whole transaction', async ({ db }) => {
  const { accountId } = await seedBuild(db);
  await assert.rejects(
    withTransaction(db, async (trx) => {
      await trx
        .insertInto('users')
        .values({ id: 'u1', account_id: accountId, name: 'ada' })
        .execute();
      await trx
        .insertInto('users')
        .values({ id: 'u2', account_id: accountId, name: 'ada' })
        .execute();
    }),
    ConflictError,
  );
  assert.equal((await db.selectFrom('users').selectAll().execute()).length, 0);
});

databases.test('withTransaction on a transaction joins it', async ({ db }) => {
  const { accountId } = await seedBuild(db);
  await assert.rejects(
    withTransaction(db, async (trx) => {
      await withTransaction(trx, async (inner) => {
        assert.equal(inner, trx);
        await inner
          .insertInto('users')
          .values({ id: 'u1', account_id: accountId, name: 'ada' })
          .execute();
      });
      throw new Error('outer fails');
    }),
    /outer fails/,
  );
  assert.equal((await db.selectFrom('users').selectAll().execute()).length, 0);
});

test(
  'on PGlite, using db instead of trx inside a transaction fails with SLUICE_DB_POOL_TIMEOUT',
  { timeout: 60_000 },
  async () => {
    const database = await openPgliteFromTemplate({ connectionTimeoutMs: 300 });
    try {
      await assert.rejects(
        withTransaction(database.db, async () => {
          await database.db.selectFrom('accounts').selectAll().execute();
        }),
        (err: unknown) => {
          assert.ok(err instanceof InternalError);
          assert.equal(err.code, 'SLUICE_DB_POOL_TIMEOUT');
          assert.match(err.message, /db instead of trx/);
          return true;
        },
      );
      // The transaction was rolled back and the one connection is free again.
      assert.deepEqual(await database.db.selectFrom('accounts').selectAll().execute(), []);
    } finally {
      await database.close();
    }
  },
);
