import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { InternalError } from '@sluice/errors';
import { openDatabase } from '../open-database.js';
import { useTestDatabases } from '../testing/test-databases.test-support.js';
import { MIGRATIONS, migrateToLatest } from './migrate.js';

const databases = useTestDatabases();

const TABLES = [
  'accounts',
  'agents',
  'api_tokens',
  'audit_events',
  'build_control',
  'build_log_chunks',
  'build_steps',
  'builds',
  'clusters',
  'commit_statuses',
  'git_integrations',
  'pipeline_variables',
  'pipelines',
  'pki',
  'projects',
  'registries',
  'runtime_environments',
  'sessions',
  'settings',
  'sign_in_flows',
  'step_types',
  'tasks',
  'triggers',
  'users',
  'webhook_bodies',
  'webhook_deliveries',
];

for (const kind of databases.kinds) {
  test(`migrations apply to an empty database, once (${kind})`, { timeout: 180_000 }, async () => {
    const logged: unknown[] = [];
    const logger = {
      info: (m: string, f?: unknown) => logged.push([m, f]),
      warn: () => {},
      debug: () => {},
    };
    const target = await databases.prepare(kind, { empty: true });
    const database = await openDatabase({ ...target, logger });
    try {
      assert.deepEqual(logged.at(-1), [
        'database migrated',
        { applied: MIGRATIONS.map((m) => m.name) },
      ]);
      const { rows } = await sql<{ table_name: string }>`
        select table_name from information_schema.tables
        where table_schema = 'public' and table_name not like 'kysely_%'
        order by table_name`.execute(database.db);
      assert.deepEqual(
        rows.map((r) => r.table_name),
        TABLES,
      );
      assert.deepEqual(await migrateToLatest(database.db), { applied: [] });
    } finally {
      await database.close();
    }
    const reopened = await openDatabase({ ...target, logger });
    await reopened.close();
    assert.equal(logged.filter((l) => (l as string[])[0] === 'database migrated').length, 1);
  });
}

databases.test('every column is timestamptz, jsonb or a plain type', async ({ db }) => {
  const { rows } = await sql<{ data_type: string }>`
    select distinct data_type from information_schema.columns
    where table_schema = 'public' and table_name not like 'kysely_%' order by data_type`.execute(
    db,
  );
  assert.deepEqual(
    rows.map((r) => r.data_type),
    ['boolean', 'integer', 'jsonb', 'text', 'timestamp with time zone'],
  );
});

databases.test(
  'a failing migration rolls back and is SLUICE_DB_MIGRATION_FAILED',
  async ({ db }) => {
    const broken = [
      ...MIGRATIONS,
      {
        name: '999_broken',
        statements: ['create table half (id int)', 'select nope from nowhere'],
      },
    ];
    await assert.rejects(migrateToLatest(db, broken), (err: unknown) => {
      assert.ok(err instanceof InternalError);
      assert.equal(err.code, 'SLUICE_DB_MIGRATION_FAILED');
      assert.match(err.message, /^Migration 999_broken failed: .*nowhere/);
      return true;
    });
    const { rows } = await sql`select to_regclass('half') as t`.execute(db);
    assert.deepEqual(rows, [{ t: null }]);
  },
);

databases.test('a database migrated by a newer Sluice is refused', async ({ db }) => {
  const newer = [...MIGRATIONS, { name: '999_future', statements: ['select 1'] }];
  await migrateToLatest(db, newer);
  await assert.rejects(migrateToLatest(db), (err: unknown) => {
    assert.ok(err instanceof InternalError);
    assert.equal(err.code, 'SLUICE_DB_MIGRATION_FAILED');
    assert.match(err.message, /999_future/);
    return true;
  });
});

databases.test(
  'a current database opens while another server holds the migration lock',
  async ({ db }) => {
    // Kysely's Migrator holds this advisory lock (its PostgresAdapter's id) for the whole of its
    // run; with nothing to migrate a starting server does not queue behind a replica that is
    // migrating, or stuck doing so.
    await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(3853314791062309107)`.execute(trx);
      const waited = new Promise<string>((resolve) => {
        setTimeout(() => resolve('waited for the lock'), 10_000).unref();
      });
      assert.deepEqual(await Promise.race([migrateToLatest(db), waited]), { applied: [] });
    });
  },
  { kinds: ['postgres'] },
);
