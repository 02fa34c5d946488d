import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError, UnavailableError } from '@sluice/errors';
import { freeLoopbackPort } from '@sluice/testkit';
import { openDatabase } from './open-database.js';

test('no target at all is SLUICE_DB_OPTIONS_INVALID', async () => {
  await assert.rejects(openDatabase({}), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.equal(err.code, 'SLUICE_DB_OPTIONS_INVALID');
    return true;
  });
  await assert.rejects(openDatabase({ url: '', dataDir: '' }), InputError);
});

test('a PostgreSQL nobody listens on is SLUICE_DB_UNAVAILABLE', async () => {
  const port = await freeLoopbackPort();
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  await assert.rejects(openDatabase({ url }), (err: unknown) => {
    assert.ok(err instanceof UnavailableError);
    assert.equal(err.code, 'SLUICE_DB_UNAVAILABLE');
    assert.match(err.message, /ECONNREFUSED/);
    return true;
  });
  const database = await openDatabase({ url, migrate: false });
  await assert.rejects(
    database.subscribe('tasks', () => {}),
    UnavailableError,
  );
  await assert.rejects(database.db.selectFrom('accounts').selectAll().execute(), UnavailableError);
  await database.close();
});
