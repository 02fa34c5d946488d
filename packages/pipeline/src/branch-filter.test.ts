import { test } from 'node:test';
import assert from 'node:assert/strict';
import { branchAllowed, compileBranchPattern } from './branch-filter.js';

function matches(pattern: string, branch: string): boolean {
  const compiled = compileBranchPattern(pattern);
  assert.ok(compiled.ok, `pattern ${pattern} should compile`);
  return compiled.test(branch);
}

test('a plain pattern matches the whole branch name exactly', () => {
  assert.equal(matches('main', 'main'), true);
  assert.equal(matches('main', 'main2'), false);
  assert.equal(matches('main', 'Main'), false);
  assert.equal(matches('feature/x', 'feature/x'), true);
});

test('a /regex/ literal matches anywhere unless anchored, with its flags', () => {
  assert.equal(matches('/^FB-.*/', 'FB-123'), true);
  assert.equal(matches('/^FB-.*/', 'fb-123'), false);
  assert.equal(matches('/^FB-.*/i', 'fb-123'), true);
  assert.equal(matches('/release/', 'hotfix/release-1'), true);
  assert.equal(matches('/^feature\\/.*/', 'feature/login'), true);
});

test('g and y flags do not make a pattern remember its last match', () => {
  const compiled = compileBranchPattern('/main/gy');
  assert.ok(compiled.ok);
  assert.deepEqual(
    [compiled.test('main'), compiled.test('main'), compiled.test('main')],
    [true, true, true],
  );
});

test('an invalid regex or flag is reported by pattern', () => {
  assert.deepEqual(compileBranchPattern('/[/'), {
    ok: false,
    message: 'Branch pattern "/[/" is not a valid regular expression: missing closing ]: `[`',
  });
  const flags = compileBranchPattern('/main/ii');
  assert.equal(flags.ok, false);
  assert.match(flags.ok ? '' : flags.message, /^Branch pattern "\/main\/ii" is not a valid/);
});

test('only lets listed branches run; ignore keeps listed branches out', () => {
  const only = { only: ['main', '/^release-/'] };
  assert.equal(branchAllowed(only, 'main'), true);
  assert.equal(branchAllowed(only, 'release-1.2'), true);
  assert.equal(branchAllowed(only, 'feature'), false);

  const ignore = { ignore: ['/^wip\\//i'] };
  assert.equal(branchAllowed(ignore, 'WIP/x'), false);
  assert.equal(branchAllowed(ignore, 'main'), true);
});

test('ignore wins over only, and no filter allows every branch', () => {
  const both = { only: ['/.*/'], ignore: ['gh-pages'] };
  assert.equal(branchAllowed(both, 'main'), true);
  assert.equal(branchAllowed(both, 'gh-pages'), false);
  assert.equal(branchAllowed({}, 'anything'), true);
});
