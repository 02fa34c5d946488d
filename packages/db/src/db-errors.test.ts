import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError, InternalError, NotFoundError, UnavailableError } from '@sluice/errors';
import { toDbError, translateDbError } from './db-errors.js';

function pgError(fields: Record<string, string>): Error {
  return Object.assign(new Error(fields['message'] ?? 'database error'), fields);
}

test('a unique violation becomes SLUICE_DB_CONFLICT naming the constraint', () => {
  const cause = pgError({
    code: '23505',
    constraint: 'accounts_name_key',
    table: 'accounts',
    detail: 'Key (name)=(acme) already exists.',
  });
  const err = translateDbError(cause);
  assert.ok(err instanceof ConflictError);
  assert.equal(err.code, 'SLUICE_DB_CONFLICT');
  assert.match(err.message, /accounts_name_key/);
  assert.match(err.message, /\(name\)=\(acme\)/);
  assert.deepEqual(err.details, {
    constraint: 'accounts_name_key',
    table: 'accounts',
    detail: 'Key (name)=(acme) already exists.',
  });
  assert.equal(err.cause, cause);
});

test('a foreign key violation becomes SLUICE_DB_REFERENCE', () => {
  const err = translateDbError(pgError({ code: '23503', constraint: 'users_account_id_fkey' }));
  assert.ok(err instanceof ConflictError);
  assert.equal(err.code, 'SLUICE_DB_REFERENCE');
  assert.match(err.message, /users_account_id_fkey/);
});

test('connection failures become SLUICE_DB_UNAVAILABLE', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
    code: 'ECONNREFUSED',
  });
  const both = Object.assign(new AggregateError([refused], ''), { code: 'ECONNREFUSED' });
  const cases: unknown[] = [
    refused,
    both,
    pgError({ code: '57P01', message: 'terminating connection due to administrator command' }),
    pgError({ code: '08006', message: 'connection failure' }),
    new Error('Connection terminated unexpectedly'),
  ];
  for (const cause of cases) {
    const err = translateDbError(cause);
    assert.ok(err instanceof UnavailableError, String(cause));
    assert.equal(err.code, 'SLUICE_DB_UNAVAILABLE');
    assert.ok(err.hint);
  }
  assert.match((translateDbError(both) as Error).message, /ECONNREFUSED 127\.0\.0\.1:1/);
});

test('any other SQLSTATE is our bug: SLUICE_DB_QUERY_FAILED with the state', () => {
  const err = translateDbError(
    pgError({ code: '42P01', message: 'relation "nope" does not exist' }),
  );
  assert.ok(err instanceof InternalError);
  assert.equal(err.code, 'SLUICE_DB_QUERY_FAILED');
  assert.equal(err.details?.['sqlState'], '42P01');
  assert.match(err.message, /relation "nope" does not exist/);
});

test('Sluice errors and errors that are not from the database pass through', () => {
  const ours = new NotFoundError('SLUICE_X_NOT_FOUND', 'gone');
  const plain = new TypeError('boom');
  const coded = Object.assign(new Error('odd'), { code: 'ERR_SOMETHING' });
  assert.equal(translateDbError(ours), ours);
  assert.equal(translateDbError(plain), plain);
  assert.equal(translateDbError(coded), coded);
  assert.equal(translateDbError('text'), 'text');
  assert.equal(translateDbError(undefined), undefined);
});

test('toDbError always gives an Error', () => {
  assert.ok(toDbError('text') instanceof Error);
  assert.ok(toDbError(pgError({ code: '23505' })) instanceof ConflictError);
});
