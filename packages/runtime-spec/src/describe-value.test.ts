import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closest, didYouMean } from '@sluice/errors';
import { leaf, typeName } from './describe-value.js';

test('typeName names the offending value', () => {
  assert.equal(typeName('16GB'), 'the string "16GB"');
  assert.equal(typeName(-1), 'the number -1');
  assert.equal(typeName(false), 'the boolean false');
  assert.equal(typeName(null), 'nothing');
  assert.equal(typeName([1]), 'a list');
  assert.equal(typeName({}), 'a map');
  assert.equal(typeName('x'.repeat(50)), `the string "${'x'.repeat(37)}..."`);
});

test('leaf names a field or a list item', () => {
  assert.equal(leaf(['runtimeScheduler', 'image']), '"image"');
  assert.equal(leaf(['extends', 2]), 'Item 2 of "extends"');
  assert.equal(leaf([]), 'The spec');
});

test('closest suggests near names only', () => {
  assert.equal(closest('dindImg', ['dindImage', 'image']), 'dindImage');
  assert.equal(closest('NAMESPACE', ['namespace']), 'namespace');
  assert.equal(closest('frobnicate', ['image', 'labels']), undefined);
  assert.equal(didYouMean('imgae', ['image']), '; did you mean "image"?');
  assert.equal(didYouMean('zzz', ['image']), '');
});
