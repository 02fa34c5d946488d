import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Agent, RuntimeEnvironment } from '@sluice/protocol';
import { describeRuntime, formatPool } from './runner-info.js';

const runtime: RuntimeEnvironment = {
  name: 'prod/ci',
  version: 1,
  description: null,
  spec: { extends: ['system/default/k8s'] },
  isDefault: true,
  createdAt: '2026-11-30T00:00:00Z',
  createdBy: null,
};

function agent(name: string, online: boolean, health: Agent['health']): Agent {
  return {
    id: `agt_${name}`,
    name,
    runtimes: ['prod/ci'],
    online,
    health,
    version: '0.1.0',
    lastHeartbeatAt: '2026-11-30T01:00:00Z',
    createdAt: '2026-11-30T00:00:00Z',
  };
}

const sick = {
  healthy: false,
  message: 'prod/ci: missing permission',
  runtimes: [
    {
      name: 'prod/ci',
      healthy: false,
      message: 'missing permission',
      checks: [{ name: 'permissions', ok: false, message: 'cannot create pods' }],
    },
  ],
};

test("an online agent's health and failed checks; an offline one's last report is history", () => {
  const info = describeRuntime(runtime, [
    agent('live', true, sick),
    agent('stopped', false, { ...sick, stoppedAt: '2026-11-30T01:00:05Z' }),
    agent('dead', false, sick),
  ]);
  assert.equal(info.kind, 'kubernetes');
  assert.deepEqual(
    info.agents.map((a) => [a.name, a.online, a.healthy, a.problems]),
    [
      ['live', true, false, ['missing permission', 'permissions: cannot create pods']],
      ['stopped', false, null, ['offline: it stopped at 2026-11-30T01:00:05Z']],
      ['dead', false, null, ['offline: no heartbeat since 2026-11-30T01:00:00Z']],
    ],
  );
});

test("a runtime's warm pool is shown as its agent last counted it; none offline or without a pool", () => {
  const warmPool = { waiting: 2, starting: 1, target: 3, hits: 5, misses: 1 };
  const pooled = { healthy: true, runtimes: [{ name: 'prod/ci', healthy: true, warmPool }] };
  const info = describeRuntime(runtime, [
    agent('live', true, pooled),
    agent('dead', false, pooled),
    agent('plain', true, { healthy: true, runtimes: [{ name: 'prod/ci', healthy: true }] }),
  ]);
  assert.deepEqual(
    info.agents.map((a) => [a.name, a.warmPool]),
    [
      ['live', warmPool],
      ['dead', null],
      ['plain', null],
    ],
  );
  assert.equal(formatPool(warmPool), '2/3 ready, 5 hits, 1 miss');
  assert.equal(formatPool({ ...warmPool, hits: 1, misses: 0 }), '2/3 ready, 1 hit, 0 misses');
  assert.equal(formatPool(null), '-');
});
