import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTruthy } from './index.js';
import type { ExprValue } from './index.js';
import { compareValues, describeValue, valuesEqual } from './values.js';

const TRUTHINESS: readonly (readonly [ExprValue, boolean])[] = [
  ['', false],
  ['a', true],
  ['0', true],
  ['false', true],
  [0, false],
  [-1, true],
  [0.5, true],
  [Number.NaN, false],
  [true, true],
  [false, false],
  [null, false],
];

for (const [value, expected] of TRUTHINESS) {
  test(`isTruthy(${describeValue(value)}) is ${expected}`, () => {
    assert.equal(isTruthy(value), expected);
  });
}

test('equality compares numbers with numeric strings and nothing else across types', () => {
  assert.equal(valuesEqual(1, '1e0'), true);
  assert.equal(valuesEqual('-2.50', -2.5), true);
  assert.equal(valuesEqual('0x10', 16), false);
  assert.equal(valuesEqual('', 0), false);
  assert.equal(valuesEqual(1, true), false);
  assert.equal(valuesEqual(null, 'null'), false);
});

test('ordering is numeric, lexicographic, or refused', () => {
  assert.equal(compareValues(2, '10'), -1);
  assert.equal(compareValues('2', '10'), 1);
  assert.equal(compareValues('a', 'a'), 0);
  assert.equal(compareValues('x', 1), undefined);
  assert.equal(compareValues('1', '2'), -1);
  assert.equal(compareValues(true, 1), undefined);
  assert.equal(compareValues(null, null), undefined);
  assert.ok(Number.isNaN(compareValues(Number.NaN, 1)));
});

test('values are described with their type, long strings shortened', () => {
  assert.equal(describeValue('a"b'), 'string "a\\"b"');
  assert.equal(describeValue(-1.5), 'number -1.5');
  assert.equal(describeValue(false), 'boolean false');
  assert.equal(describeValue(null), 'null');
  assert.equal(describeValue('x'.repeat(50)), `string "${'x'.repeat(40)}…"`);
});
