import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dockerIgnoreMatcher } from './docker-ignore.js';

test('patterns match paths and their children, last match wins', () => {
  const ignored = dockerIgnoreMatcher(
    ['# comment', 'node_modules', '*.log', '!keep.log', '/build/', 'docs/**/*.md', 'tmp?'].join(
      '\n',
    ),
  );
  assert.equal(ignored('node_modules'), true);
  assert.equal(ignored('node_modules/a/b.js'), true);
  assert.equal(ignored('src/node_modules'), false);
  assert.equal(ignored('debug.log'), true);
  assert.equal(ignored('keep.log'), false);
  assert.equal(ignored('sub/debug.log'), false);
  assert.equal(ignored('build/out.js'), true);
  assert.equal(ignored('docs/a.md'), true);
  assert.equal(ignored('docs/x/y/a.md'), true);
  assert.equal(ignored('docs/a.txt'), false);
  assert.equal(ignored('tmp1'), true);
  assert.equal(ignored('Dockerfile'), false);
});

test('**/ matches at any depth and an empty file ignores nothing', () => {
  const ignored = dockerIgnoreMatcher('**/*.pyc\n');
  assert.equal(ignored('a.pyc'), true);
  assert.equal(ignored('x/y/a.pyc'), true);
  assert.equal(dockerIgnoreMatcher('')('anything'), false);
});
