import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from './open-database.js';
import { spawnDbChild } from './spawn-db-child.test-support.js';
import { useTestDatabases } from './testing/test-databases.test-support.js';

const databases = useTestDatabases();

for (const kind of databases.kinds) {
  test(
    `committed rows survive a SIGKILLed writer, the open transaction does not (${kind})`,
    { timeout: 120_000 },
    async () => {
      const target = await databases.prepare(kind);
      const child = await spawnDbChild(target, 50);
      assert.equal(child.status, 'ready');
      await child.kill();
      const database = await openDatabase(target);
      try {
        const keys = await database.db
          .selectFrom('settings')
          .select('key')
          .orderBy('key')
          .execute();
        assert.equal(keys.length, 50);
        assert.ok(keys.every((row) => /^child-\d+$/.test(row.key)));
      } finally {
        await database.close();
      }
    },
  );
}
