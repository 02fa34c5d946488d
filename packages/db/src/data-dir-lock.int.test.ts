import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError } from '@sluice/errors';
import { LOCK_FILE } from './data-dir-lock.js';
import { jsonb } from './jsonb.js';
import { openDatabase } from './open-database.js';
import { spawnDbChild } from './spawn-db-child.test-support.js';
import { useTestDatabases } from './testing/test-databases.test-support.js';

// The data directory lock exists only for PGlite: PostgreSQL guards its own.
const databases = useTestDatabases({ kinds: ['pglite'] });

function lockedBy(pid: number) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof ConflictError);
    assert.equal(err.code, 'SLUICE_DB_LOCKED');
    assert.match(err.message, new RegExp(`^Data directory .+ is in use by process ${pid}$`));
    return true;
  };
}

test(
  'a second open of a data directory in the same process is SLUICE_DB_LOCKED',
  { timeout: 120_000 },
  async () => {
    const { dataDir = '' } = await databases.prepare('pglite');
    const first = await openDatabase({ dataDir });
    try {
      await assert.rejects(openDatabase({ dataDir }), lockedBy(process.pid));
      await first.db
        .insertInto('settings')
        .values({ key: 'k', value: jsonb(1) })
        .execute();
    } finally {
      await first.close();
    }
    assert.equal(existsSync(join(dataDir, LOCK_FILE)), false, 'close releases the lock');
    const second = await openDatabase({ dataDir });
    assert.equal((await second.db.selectFrom('settings').selectAll().execute()).length, 1);
    await second.close();
  },
);

test(
  'a child holding the directory locks us out; once it is SIGKILLed its stale lock is taken over',
  { timeout: 120_000 },
  async () => {
    const { dataDir = '' } = await databases.prepare('pglite');
    const child = await spawnDbChild({ dataDir }, 3);
    assert.equal(child.status, 'ready');
    try {
      assert.equal(await readFile(join(dataDir, LOCK_FILE), 'utf8'), `${child.pid}\n`);
      await assert.rejects(openDatabase({ dataDir }), lockedBy(child.pid));
      const rival = await spawnDbChild({ dataDir }, 0);
      assert.equal(rival.status, 'failed SLUICE_DB_LOCKED');
    } finally {
      await child.kill();
    }
    assert.equal(
      await readFile(join(dataDir, LOCK_FILE), 'utf8'),
      `${child.pid}\n`,
      'the lock is stale',
    );
    const warnings: unknown[] = [];
    const logger = {
      warn: (m: string, f?: unknown) => warnings.push([m, f]),
      info: () => {},
      debug: () => {},
    };
    const database = await openDatabase({ dataDir, logger });
    try {
      assert.deepEqual(warnings, [
        ['taking over stale data directory lock', { dataDir, pid: child.pid }],
      ]);
      assert.equal(await readFile(join(dataDir, LOCK_FILE), 'utf8'), `${process.pid}\n`);
    } finally {
      await database.close();
    }
  },
);
