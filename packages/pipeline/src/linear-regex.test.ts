import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileLinearRegex } from './linear-regex.js';

function matches(source: string, flags: string, text: string): boolean {
  const compiled = compileLinearRegex(source, flags);
  assert.ok(compiled.ok, `/${source}/${flags} should compile`);
  return compiled.regex.test(text);
}

test('a catastrophic-backtracking pattern answers at once', () => {
  const started = performance.now();
  assert.equal(matches('^(a+)+$', '', `${'a'.repeat(60)}!`), false);
  assert.equal(matches('(x+x+)+y', '', 'x'.repeat(100_000)), false);
  assert.ok(performance.now() - started < 1_000, 'linear time, not exponential');
});

test('flags i, m and s mean what they mean in JavaScript; g, y, d, u and v change nothing', () => {
  assert.equal(matches('^main$', 'i', 'MAIN'), true);
  assert.equal(matches('^b$', '', 'a\nb'), false);
  assert.equal(matches('^b$', 'm', 'a\nb'), true);
  assert.equal(matches('a.b', '', 'a\nb'), false);
  assert.equal(matches('a.b', 's', 'a\nb'), true);
  assert.equal(matches('main', 'gyduv', 'main'), true);
  assert.equal(matches('\\u0041(?<x>b)', '', 'AB'), false, 'JavaScript spellings are accepted');
  assert.equal(matches('\\u0041(?<x>b)', 'i', 'ab'), true);
});

test('unknown or repeated flags and what RE2 cannot do are refused with the reason', () => {
  assert.deepEqual(compileLinearRegex('a', 'x'), { ok: false, reason: 'unknown flag "x"' });
  assert.deepEqual(compileLinearRegex('a', 'ii'), { ok: false, reason: 'flag "i" is repeated' });
  assert.deepEqual(compileLinearRegex('^(?!wip)'), {
    ok: false,
    reason:
      'invalid or unsupported Perl syntax: `(?!` (patterns are matched in linear time by RE2, which has no lookaround or backreferences)',
  });
  const backreference = compileLinearRegex('(a)\\1');
  assert.match(backreference.ok ? '' : backreference.reason, /^invalid escape sequence: `\\1` \(/);
});

test('source reads back as a literal, as RegExp.prototype.source gives it', () => {
  const compiled = compileLinearRegex('^feature/[a-z/]+\\/x$');
  assert.equal(compiled.ok && compiled.regex.source, '^feature\\/[a-z/]+\\/x$');
});
