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

test('a backtracking-prone filter answers at once, with flags and anchors as written', () => {
  const started = performance.now();
  assert.equal(matchesBranchFilter('/^(a+)+$/', `${'a'.repeat(60)}!`), false);
  assert.equal(matchesBranchFilter('/^(a+)+$/', 'a'.repeat(60)), true);
  assert.ok(performance.now() - started < 1_000, 'matched in linear time');
  assert.equal(matchesBranchFilter('/^release$/', 'release-1'), false, '$ anchors the end');
  assert.equal(matchesBranchFilter('/release/', 'hotfix/release-1'), true, 'unanchored: anywhere');
  assert.equal(matchesBranchFilter('/^Main$/i', 'MAIN'), true);
  assert.equal(matchesBranchFilter('/^main$/m', 'x\nmain'), true);
  assert.equal(matchesBranchFilter('/^a.b$/s', 'a\nb'), true);
});

test('a filter the linear-time engine cannot run is refused when saved, saying why', () => {
  const check = checkBranchFilter('/^(?!wip\\/).*$/');
  assert.deepEqual(check, {
    ok: false,
    message:
      'Branch pattern "/^(?!wip\\/).*$/" is not a valid regular expression: invalid or unsupported Perl syntax: `(?!` (patterns are matched in linear time by RE2, which has no lookaround or backreferences)',
  });
  assert.throws(() => matchesBranchFilter('/(a)\\1/', 'aa'), {
    code: 'SLUICE_TRIGGER_BRANCH_FILTER_INVALID',
    message: /backreferences/,
  });
  assert.equal(checkBranchFilter('/main/x').ok, false, 'unknown flag');
});

test('a filter whose compiled program is too large is refused when saved, with its size and what to write', () => {
  // 164 characters, but ten counted repetitions of 200: some 4,000 instructions.
  const filter = `/^${'[a-z0-9-]{0,200}'.repeat(10)}$/`;
  const check = checkBranchFilter(filter);
  assert.equal(check.ok, false);
  assert.match(
    check.ok ? '' : check.message,
    /^Branch pattern "\/\^\[a-z0-9-\]\{0,200\}.*" is too complex: RE2 compiles it to 4,0\d\d instructions, more than 2,000; .*write \* or \+ instead/,
  );
  const names = Array.from({ length: 100 }, (_, i) => `release-${i}`).join('|');
  assert.deepEqual(checkBranchFilter(`/^(${names})$/`), { ok: true }, 'a hundred names fit');
  assert.deepEqual(checkBranchFilter('x'.repeat(1000)), { ok: true }, 'a plain name is no program');
});
