import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError, InternalError, NotFoundError, UnavailableError } from '@sluice/errors';
import { toDbError, translateDbError, violatedConstraint } from './db-errors.js';

function pgError(fields: Record<string, string>): Error {
  return Object.assign(new Error(fields['message'] ?? 'database error'), fields);
}

test('a unique violation becomes SLUICE_DB_CONFLICT in words, the constraint only in details', () => {
  const cause = pgError({
    code: '23505',
    constraint: 'projects_account_id_name_key',
    table: 'projects',
    detail: 'Key (account_id, name)=(acc_1, web) already exists.',
    message: 'duplicate key value violates unique constraint "projects_account_id_name_key"',
  });
  const err = translateDbError(cause);
  assert.ok(err instanceof ConflictError);
  assert.equal(err.code, 'SLUICE_DB_CONFLICT');
  assert.equal(err.message, 'A project with the same name already exists');
  assert.deepEqual(err.details, {
    constraint: 'projects_account_id_name_key',
    table: 'projects',
    detail: 'Key (account_id, name)=(acc_1, web) already exists.',
  });
  assert.equal(err.cause, cause);
  assert.deepEqual(violatedConstraint(err), {
    code: 'SLUICE_DB_CONFLICT',
    constraint: 'projects_account_id_name_key',
    table: 'projects',
  });
  const unknown = translateDbError(pgError({ code: '23505', table: 'elsewhere' })) as Error;
  assert.equal(unknown.message, 'An object with the same name already exists');
  const index = translateDbError(
    pgError({ code: '23505', constraint: 'registries_one_default_idx', table: 'registries' }),
  ) as Error;
  assert.equal(index.message, 'The account already has a default registry');
});

test('a foreign key violation becomes SLUICE_DB_REFERENCE saying what refers to what', () => {
  const blocked = translateDbError(
    pgError({
      code: '23503',
      constraint: 'builds_pipeline_id_fkey',
      table: 'builds',
      message:
        'update or delete on table "pipelines" violates foreign key constraint "builds_pipeline_id_fkey" on table "builds"',
      detail: 'Key (id)=(pip_1) is still referenced from table "builds".',
    }),
  );
  assert.ok(blocked instanceof ConflictError);
  assert.equal(blocked.code, 'SLUICE_DB_REFERENCE');
  assert.equal(blocked.message, 'The pipeline cannot be deleted while builds refer to it');
  const missing = translateDbError(
    pgError({
      code: '23503',
      constraint: 'users_account_id_fkey',
      table: 'users',
      message:
        'insert or update on table "users" violates foreign key constraint "users_account_id_fkey"',
      detail: 'Key (account_id)=(missing) is not present in table "accounts".',
    }),
  ) as Error;
  assert.equal(missing.message, 'The account this refers to does not exist (any more)');
  for (const err of [blocked, missing])
    assert.doesNotMatch(err.message, /_fkey|_key|"|users|table/);
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
