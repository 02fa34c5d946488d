import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareSemVer, newestVersion, parseSemVer } from './semver.js';

test('valid versions parse, partial and padded ones do not', () => {
  assert.deepEqual(parseSemVer('1.2.3-rc.1+build.5'), {
    major: 1,
    minor: 2,
    patch: 3,
    prerelease: ['rc', '1'],
  });
  for (const bad of ['1', '1.2', '01.2.3', 'v1.2.3', '1.2.3-', '1.2.3 ', 'latest']) {
    assert.equal(parseSemVer(bad), undefined, bad);
  }
});

test('versions sort numerically, a release after its pre-releases', () => {
  const sorted = ['1.10.0', '1.2.0', '1.2.0-rc.10', '1.2.0-rc.2', '1.2.0-alpha', '0.9.9'].sort(
    compareSemVer,
  );
  assert.deepEqual(sorted, [
    '0.9.9',
    '1.2.0-alpha',
    '1.2.0-rc.2',
    '1.2.0-rc.10',
    '1.2.0',
    '1.10.0',
  ]);
});

test('the newest version is the newest release; a pre-release only when there is nothing else', () => {
  assert.equal(newestVersion(['1.4.0', '2.0.0-rc.1', '1.10.0']), '1.10.0');
  assert.equal(newestVersion(['2.0.0-rc.1', '2.0.0-rc.2']), '2.0.0-rc.2');
  assert.equal(newestVersion([]), undefined);
});
