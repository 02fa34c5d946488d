import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkBranchFilter, matchesBranchFilter } from './branch-filter.js';

test('branch filters match Codefresh trigger style regex literals and exact names', () => {
  const cases: [string, string, boolean][] = [
    ['/^main$/', 'main', true],
    ['/^main$/', 'main-2', false],
    ['/^release-.*$/', 'release-1.2', true],
    ['/^(main|develop)$/', 'develop', true],
    ['/^FEATURE\\//i', 'feature/x', true],
    ['/.*/gi', 'anything/at-all', true],
    ['/.*/gi', 'second call still matches (no lastIndex state)', true],
    ['main', 'main', true],
    ['main', 'maintenance', false],
    ['', 'any-branch', true],
  ];
  for (const [filter, branch, expected] of cases)
    assert.equal(matchesBranchFilter(filter, branch), expected, `${filter} on ${branch}`);
});

test('an invalid regex is reported by checkBranchFilter and thrown by matchesBranchFilter', () => {
  assert.deepEqual(checkBranchFilter('/^main$/'), { ok: true });
  const check = checkBranchFilter('/[main/');
  assert.equal(check.ok, false);
  assert.match(
    check.ok ? '' : check.message,
    /^Branch pattern "\/\[main\/" is not a valid regular expression/,
  );
  assert.throws(() => matchesBranchFilter('/[main/', 'main'), {
    name: 'InputError',
    code: 'SLUICE_TRIGGER_BRANCH_FILTER_INVALID',
  });
});
