import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../open-database.js';
import { seedBuild } from '../fixtures.test-support.js';
import { useTestDatabases } from '../testing/test-databases.test-support.js';
import { MIGRATIONS, migrateToLatest } from './migrate.js';

const databases = useTestDatabases();

for (const kind of databases.kinds) {
  test(
    `005 gives each pipeline of a 004 database the number of its newest build (${kind})`,
    { timeout: 180_000 },
    async () => {
      const target = await databases.prepare(kind, { empty: true });
      const database = await openDatabase({ ...target, migrate: false });
      try {
        const before = MIGRATIONS.slice(0, 4);
        assert.equal(before.at(-1)?.name, '004_workflow_limits');
        await migrateToLatest(database.db, before);
        const busy = await seedBuild(database.db, 'busy');
        await seedBuild(database.db, 'one');
        // Numbers need not be dense: a deleted build leaves a gap.
        for (const number of [2, 7]) {
          await database.db
            .insertInto('builds')
            .values({
              id: `bld-busy-${number}`,
              account_id: busy.accountId,
              pipeline_id: busy.pipelineId,
              number,
              status: 'success',
              trigger: 'manual',
            })
            .execute();
        }
        await database.db
          .insertInto('pipelines')
          .values({
            id: 'pip-idle',
            account_id: busy.accountId,
            project_id: busy.projectId,
            name: 'idle',
            yaml: 'version: "1.0"\nsteps: {}\n',
          })
          .execute();

        assert.deepEqual(await migrateToLatest(database.db, MIGRATIONS.slice(0, 5)), {
          applied: ['005_build_throughput'],
        });
        const rows = await database.db
          .selectFrom('pipelines')
          .select(['id', 'last_build_number'])
          .orderBy('id')
          .execute();
        assert.deepEqual(rows, [
          { id: 'pip-busy', last_build_number: 7 },
          { id: 'pip-idle', last_build_number: 0 },
          { id: 'pip-one', last_build_number: 1 },
        ]);
      } finally {
        await database.close();
      }
    },
  );
}
