import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from './duration.js';

test('durations are a whole number and one unit', () => {
  assert.equal(parseDuration('90s', '--since'), 90);
  assert.equal(parseDuration('15m', '--since'), 900);
  assert.equal(parseDuration('1h', '--since'), 3600);
  assert.equal(parseDuration('30d', '--expires'), 30 * 86_400);
  assert.equal(parseDuration('2w', '--expires'), 14 * 86_400);
});

test('anything else is refused naming the flag and the value', () => {
  for (const bad of ['30', 'd', '1.5h', '0d', '-1h', '1y', '1h30m'])
    assert.throws(
      () => parseDuration(bad, '--expires'),
      (err: Error) =>
        err.message === `--expires takes a duration like 90s, 15m, 1h, 30d or 2w, got "${bad}"`,
    );
});
