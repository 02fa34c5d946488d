import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SecretMasker } from './secret-masker.js';

test('masks every occurrence of a secret', () => {
  const masker = new SecretMasker();
  masker.add('s3cr3t');
  assert.equal(masker.mask('a s3cr3t b s3cr3t'), 'a **** b ****');
});

test('a longer secret that contains a shorter one is masked whole', () => {
  const masker = new SecretMasker();
  masker.add('abc');
  masker.add('xxabcxx');
  assert.equal(masker.mask('[xxabcxx] [abc]'), '[****] [****]');
});

test('multi-line secrets are masked line by line and blank lines are ignored', () => {
  const masker = new SecretMasker();
  masker.add('-----BEGIN-----\nline-two\n\n');
  assert.equal(masker.size, 2);
  assert.equal(masker.mask('line-two appears'), '**** appears');
  assert.equal(masker.mask('plain text'), 'plain text');
});
