import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PreparedNames } from './translating-pool.js';

test('a text keeps its one name; texts past the bound and forgotten ones run unnamed', () => {
  const names = new PreparedNames(2);
  const first = names.nameOf('select $1');
  assert.ok(first !== undefined);
  assert.equal(names.nameOf('select $1'), first);
  const second = names.nameOf('select $1, $2');
  assert.ok(second !== undefined && second !== first);
  assert.equal(names.nameOf('select $1, $2, $3'), undefined);
  names.forget('select $1');
  assert.equal(names.nameOf('select $1'), undefined);
  assert.equal(names.nameOf('select $1, $2'), second);
});
