import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepoRoot, REPO_ROOT_MARKER } from './repo-root.js';

test('findRepoRoot returns the nearest ancestor holding the marker', () => {
  const present = new Set(['/repo/images/build-local.sh', '/images/build-local.sh']);
  const exists = (path: string): boolean => present.has(path);
  assert.equal(findRepoRoot('/repo/packages/testkit/dist', { exists }), '/repo');
  assert.equal(findRepoRoot('/repo', { exists }), '/repo');
  assert.equal(findRepoRoot('/elsewhere/deep/dir', { exists }), '/');
});

test('findRepoRoot returns undefined when no ancestor has the marker', () => {
  const seen: string[] = [];
  const exists = (path: string): boolean => (seen.push(path), false);
  assert.equal(findRepoRoot('/a/b', { exists }), undefined);
  assert.deepEqual(seen, [
    '/a/b/images/build-local.sh',
    '/a/images/build-local.sh',
    '/images/build-local.sh',
  ]);
});

test('findRepoRoot honours a custom marker and resolves relative starts', () => {
  const exists = (path: string): boolean => path === '/x/package.json';
  assert.equal(findRepoRoot('/x/y/../y/z', { exists, marker: 'package.json' }), '/x');
});

test('findRepoRoot finds this repository from this module', () => {
  const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
  assert.ok(root !== undefined);
  assert.ok(existsSync(join(root, REPO_ROOT_MARKER)));
  assert.ok(existsSync(join(root, 'packages', 'testkit', 'package.json')));
});
