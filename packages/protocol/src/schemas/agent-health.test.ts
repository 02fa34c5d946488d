import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentHealth, HEALTH_LIMITS, TRUNCATION_MARK, truncateText } from './agent-health.js';

test('a long text is cut to its limit with the mark, never inside a surrogate pair', () => {
  assert.equal(truncateText('short', 20), 'short');
  const cut = truncateText('x'.repeat(5000), 100);
  assert.equal(cut.length, 100);
  assert.ok(cut.endsWith(TRUNCATION_MARK));
  assert.equal(truncateText(cut, 100), cut, 'cutting twice changes nothing');
  const emoji = truncateText(`${'a'.repeat(84)}${'😀'.repeat(20)}`, 100);
  assert.ok(emoji.endsWith(TRUNCATION_MARK));
  assert.doesNotMatch(emoji, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no lone high surrogate');
});

test('a report of megabytes is cut to its limits, marked, and stays so when read back', () => {
  const checks = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      name: 'n'.repeat(5000 + i),
      ok: true,
      message: 'm'.repeat(100_000),
    }));
  const huge = {
    healthy: false,
    message: 'x'.repeat(7 * 1024 * 1024),
    checks: checks(40),
    runtimes: Array.from({ length: HEALTH_LIMITS.runtimes + 2 }, (_, i) => ({
      name: `rt-${i}`,
      healthy: true,
      message: 'y'.repeat(50_000),
      checks: checks(12),
    })),
  };
  const capped = AgentHealth.parse(huge);
  const size = JSON.stringify(capped).length;
  assert.ok(size <= HEALTH_LIMITS.json, `${size} characters`);
  assert.ok(capped.message?.startsWith('x'.repeat(100)));
  assert.ok((capped.message?.length ?? 0) <= HEALTH_LIMITS.text);
  assert.match(
    capped.message ?? '',
    /x \u2026 \[truncated\]; 2 more runtimes were left out; the checks were left out: the report was over 65536 characters$/,
  );
  assert.equal(capped.runtimes?.length, HEALTH_LIMITS.runtimes);
  assert.equal(capped.checks, undefined);
  assert.ok(capped.runtimes?.every((r) => r.checks === undefined));
  assert.ok(capped.runtimes?.every((r) => r.message?.length === HEALTH_LIMITS.text));
  assert.deepEqual(AgentHealth.parse(capped), capped, 'a stored report reads back the same');

  // A runtime's checks are cut to their count and size, each text marked.
  const runtime = AgentHealth.parse({
    healthy: true,
    runtimes: [{ name: 'k8s', healthy: true, checks: checks(3) }],
  }).runtimes?.[0];
  assert.equal(runtime?.checks?.[0]?.name.length, HEALTH_LIMITS.checkName);
  assert.ok(runtime?.checks?.[0]?.message?.endsWith(TRUNCATION_MARK));
});

test('a list of checks past its count ends with an entry counting those left out', () => {
  const many = AgentHealth.parse({
    healthy: false,
    checks: Array.from({ length: 40 }, (_, i) => ({ name: `c${i}`, ok: i !== 30 })),
  });
  assert.equal(many.checks?.length, HEALTH_LIMITS.checks);
  assert.deepEqual(many.checks?.at(-1), {
    name: 'more-checks',
    ok: false,
    message: `31 more checks were left out (a report keeps ${HEALTH_LIMITS.checks})`,
  });
  assert.deepEqual(AgentHealth.parse(many), many);
});

test('a report within the limits is kept as it is', () => {
  const health = {
    healthy: true,
    message: 'fine',
    runtimes: [{ name: 'local', healthy: true, checks: [{ name: 'docker', ok: true }] }],
  };
  assert.deepEqual(AgentHealth.parse(health), health);
});
