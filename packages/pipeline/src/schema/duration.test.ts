import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TIMEOUT_MS, parseDuration } from './duration.js';

test('durations in s, m and h, fractional and combined', () => {
  const ms = (value: unknown) => {
    const result = parseDuration(value);
    return result.ok ? result.ms : result.problem;
  };
  assert.equal(ms('45m'), 2_700_000);
  assert.equal(ms('1.5h'), 5_400_000);
  assert.equal(ms('30s'), 30_000);
  assert.equal(ms('2h30m'), 9_000_000);
  assert.equal(ms(' 10m '), 600_000);
  for (const none of [0, '0', null, undefined, '', '0m']) assert.equal(ms(none), undefined);
  for (const bad of [30, '30', '10 m', 'm', '1d', '-5m', true]) {
    assert.equal(ms(bad), 'must be a duration like 45m or 1.5h', String(bad));
  }
  assert.equal(ms('596h'), 596 * 3_600_000);
  assert.ok(596 * 3_600_000 <= MAX_TIMEOUT_MS);
  assert.equal(ms('597h'), 'must be at most 596h (about 24.8 days)');
});
