import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImageReference, repositoryOf } from './image-reference.js';

test('splits domain, path, tag and digest the way Docker does', () => {
  assert.deepEqual(parseImageReference('app'), {
    domain: undefined,
    path: 'app',
    tag: undefined,
    digest: undefined,
  });
  assert.deepEqual(parseImageReference('team/app:1.0'), {
    domain: undefined,
    path: 'team/app',
    tag: '1.0',
    digest: undefined,
  });
  const full = parseImageReference('127.0.0.1:5000/team/app:v2@sha256:abc');
  assert.deepEqual(full, {
    domain: '127.0.0.1:5000',
    path: 'team/app',
    tag: 'v2',
    digest: 'sha256:abc',
  });
  assert.equal(repositoryOf(full), '127.0.0.1:5000/team/app');
  assert.equal(parseImageReference('localhost/app').domain, 'localhost');
  assert.equal(parseImageReference('registry:5000/app').tag, undefined);
});
