import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError } from '@sluice/errors';
import { openDatabase } from '../open-database.js';
import { seedBuild } from '../fixtures.test-support.js';
import { useTestDatabases } from '../testing/test-databases.test-support.js';
import { MIGRATIONS, migrateToLatest } from './migrate.js';

const databases = useTestDatabases();

for (const kind of databases.kinds) {
  test(
    `002 upgrades a 001 database that holds builds (${kind})`,
    { timeout: 180_000 },
    async () => {
      const target = await databases.prepare(kind, { empty: true });
      const database = await openDatabase({ ...target, migrate: false });
      try {
        const [first] = MIGRATIONS;
        assert.ok(first !== undefined);
        assert.deepEqual(await migrateToLatest(database.db, [first]), {
          applied: ['001_control_plane'],
        });
        const { buildId } = await seedBuild(database.db);
        // Written as a 001 server would, without the new columns.
        await database.db
          .insertInto('build_steps')
          .values({ build_id: buildId, name: 'build', position: 0, status: 'success' })
          .execute();
        await database.db
          .insertInto('build_control')
          .values({ build_id: buildId, kind: 'cancel' })
          .execute();

        assert.deepEqual(await migrateToLatest(database.db, MIGRATIONS.slice(0, 2)), {
          applied: ['002_pipeline_language'],
        });
        const step = await database.db
          .selectFrom('build_steps')
          .select(['name', 'parent', 'attempt', 'answered_by'])
          .executeTakeFirstOrThrow();
        assert.deepEqual(step, { name: 'build', parent: null, attempt: 1, answered_by: null });
        const control = await database.db
          .selectFrom('build_control')
          .select(['kind', 'step', 'actor'])
          .executeTakeFirstOrThrow();
        assert.deepEqual(control, { kind: 'cancel', step: null, actor: null });
      } finally {
        await database.close();
      }
    },
  );
}

databases.test('an account has at most one default registry', async ({ db }) => {
  const { accountId } = await seedBuild(db);
  const registry = (name: string, isDefault: boolean) => ({
    account_id: accountId,
    name,
    domain: `${name}.example.com`,
    is_default: isDefault,
  });
  await db
    .insertInto('registries')
    .values([registry('a', true), registry('b', false), registry('c', false)])
    .execute();
  await assert.rejects(
    db.insertInto('registries').values(registry('d', true)).execute(),
    (err: unknown) => err instanceof ConflictError && err.code === 'SLUICE_DB_CONFLICT',
  );
  const rows = await db.selectFrom('registries').select('name').orderBy('name').execute();
  assert.deepEqual(
    rows.map((r) => r.name),
    ['a', 'b', 'c'],
  );
});

databases.test('step types are kept per account, name and version', async ({ db }) => {
  const { accountId } = await seedBuild(db);
  const row = (version: string) => ({
    account_id: accountId,
    name: 'acme/deploy',
    version,
    document: `version: ${version}`,
    digest: version,
  });
  await db
    .insertInto('step_types')
    .values([row('1.0.0'), row('1.1.0')])
    .execute();
  await assert.rejects(
    db.insertInto('step_types').values(row('1.0.0')).execute(),
    (err: unknown) => err instanceof ConflictError,
  );
});
