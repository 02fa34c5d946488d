import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeError,
  exitCodeFor,
  InputError,
  InternalError,
  NotFoundError,
  UnavailableError,
} from './sluice-error.js';

test('errors carry code, category, details, hint and cause', () => {
  const cause = new Error('socket closed');
  const err = new UnavailableError('SLUICE_X', 'Docker is down', {
    cause,
    details: { host: 'h' },
    hint: 'start it',
  });
  assert.equal(err.code, 'SLUICE_X');
  assert.equal(err.category, 'unavailable');
  assert.equal(err.name, 'UnavailableError');
  assert.deepEqual(err.details, { host: 'h' });
  assert.equal(err.cause, cause);
  assert.ok(err instanceof Error);
});

test('categories map to distinct exit codes, unknown errors to 70', () => {
  assert.equal(exitCodeFor(new InputError('C', 'm')), 2);
  assert.equal(exitCodeFor(new NotFoundError('C', 'm')), 66);
  assert.equal(exitCodeFor(new UnavailableError('C', 'm')), 69);
  assert.equal(exitCodeFor(new InternalError('C', 'm')), 70);
  assert.equal(exitCodeFor(new TypeError('boom')), 70);
});

test('describeError shows the cause chain only when verbose, and the hint last', () => {
  const err = new NotFoundError('C', 'Outer', {
    cause: new Error('inner', { cause: 'root' }),
    hint: 'do this',
  });
  assert.equal(describeError(err), 'Outer\nhint: do this');
  assert.equal(
    describeError(err, { verbose: true }),
    'Outer\n  caused by: inner\n  caused by: root\nhint: do this',
  );
});
