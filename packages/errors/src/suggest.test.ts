import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closest, didYouMean, editDistance } from './suggest.js';

test('editDistance counts insertions, deletions and substitutions', () => {
  assert.equal(editDistance('', ''), 0);
  assert.equal(editDistance('abc', ''), 3);
  assert.equal(editDistance('', 'ab'), 2);
  assert.equal(editDistance('lenght', 'length'), 2);
  assert.equal(editDistance('kitten', 'sitting'), 3);
});

test('closest suggests near names, case-insensitively, first candidate winning a tie', () => {
  assert.equal(closest('comands', ['commands', 'cmd', 'image']), 'commands');
  assert.equal(closest('trimm', ['trim', 'trimLeft']), 'trim');
  assert.equal(closest('IMAGE', ['image']), 'image');
  assert.equal(closest('abcd', ['abxy', 'abcx']), 'abcx');
  assert.equal(closest('frobnicate', ['floor', 'round']), undefined);
  assert.equal(closest('abc', []), undefined);
});

test('longer names tolerate more typos', () => {
  assert.equal(closest('working_dirctory', ['working_directory']), 'working_directory');
  assert.equal(closest('environmnet', ['environment']), 'environment');
});

test('didYouMean phrases the suggestion, or says nothing', () => {
  assert.equal(didYouMean('imgae', ['image']), '; did you mean "image"?');
  assert.equal(didYouMean('zzz', ['image']), '');
});
