import { test } from 'node:test';
import assert from 'node:assert/strict';
import { positionIndex } from './text-position.js';

test('offsets map to 1-based line and column', () => {
  const at = positionIndex('ab\ncd\n\nef');
  assert.deepEqual(at(0), { line: 1, column: 1 });
  assert.deepEqual(at(1), { line: 1, column: 2 });
  assert.deepEqual(at(2), { line: 1, column: 3 });
  assert.deepEqual(at(3), { line: 2, column: 1 });
  assert.deepEqual(at(6), { line: 3, column: 1 });
  assert.deepEqual(at(8), { line: 4, column: 2 });
});

test('offsets outside the text are clamped to it', () => {
  const at = positionIndex('ab\ncd');
  assert.deepEqual(at(-5), { line: 1, column: 1 });
  assert.deepEqual(at(99), { line: 2, column: 3 });
});

test('a byte order mark takes no column', () => {
  const at = positionIndex('\uFEFFkey: 1\nnext: 2');
  assert.deepEqual(at(0), { line: 1, column: 1 });
  assert.deepEqual(at(1), { line: 1, column: 1 });
  assert.deepEqual(at(2), { line: 1, column: 2 });
  assert.deepEqual(at(8), { line: 2, column: 1 });
});
