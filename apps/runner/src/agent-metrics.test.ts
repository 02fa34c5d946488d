/**
 * The agent's own series, read back through a Prometheus text-format parser: reconcile passes
 * timed per loop and runtime, build pods by phase (a phase that empties reads 0), failed API
 * requests by api and kind, and the reaper's listing turned into phases.
 * @module
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { family, parseMetrics, sample } from '@sluice/testkit';
import { apiErrorCounts, createAgentMetrics, warmPoolStats } from './agent-metrics.js';
import { podPhases } from './orphan-reaper.js';

test('reconcile passes, build pods by phase and API errors are exported', async () => {
  let controlPlane = new Map<string, number>([['unavailable', 2]]);
  let kube: Record<string, number> = { forbidden: 1 };
  const backends = [
    { runtime: 'k8s', apiErrors: () => kube },
    { runtime: 'local', apiErrors: undefined },
  ];
  const metrics = createAgentMetrics({
    tasksHeld: () => 0,
    apiErrors: () => apiErrorCounts(controlPlane, backends),
  });
  metrics.reconcileDone('reaper', 'k8s', 0.02);
  metrics.reconcileDone('reaper', 'k8s', 3);
  metrics.setBuildPods('k8s', { Pending: 2, Running: 1 });
  metrics.setBuildPods('local', { Running: 1 });

  let m = parseMetrics(await metrics.render());
  family(m, 'sluice_agent_reconcile_duration_seconds', 'histogram');
  family(m, 'sluice_agent_api_errors_total', 'counter');
  family(m, 'sluice_agent_build_pods', 'gauge');
  family(m, 'sluice_agent_process_cpu_user_seconds_total');
  assert.equal(
    sample(m, 'sluice_agent_reconcile_duration_seconds', { loop: 'reaper', runtime: 'k8s' }),
    2,
  );
  assert.equal(sample(m, 'sluice_agent_build_pods', { runtime: 'k8s', phase: 'Pending' }), 2);
  assert.equal(sample(m, 'sluice_agent_build_pods', { runtime: 'local', phase: 'Running' }), 1);
  const errors = { api: 'control-plane', kind: 'unavailable' };
  assert.equal(sample(m, 'sluice_agent_api_errors_total', errors), 2);
  const forbidden = { api: 'kubernetes', runtime: 'k8s', kind: 'forbidden' };
  assert.equal(sample(m, 'sluice_agent_api_errors_total', forbidden), 1);

  // The pods ran; the control plane failed again; the cluster refused once more.
  metrics.setBuildPods('k8s', { Succeeded: 3 });
  controlPlane = new Map([
    ['unavailable', 3],
    ['authentication', 1],
  ]);
  kube = { forbidden: 2 };
  m = parseMetrics(await metrics.render());
  assert.equal(sample(m, 'sluice_agent_build_pods', { runtime: 'k8s', phase: 'Pending' }), 0);
  assert.equal(sample(m, 'sluice_agent_build_pods', { runtime: 'k8s', phase: 'Succeeded' }), 3);
  assert.equal(sample(m, 'sluice_agent_api_errors_total', errors), 3);
  assert.equal(
    sample(m, 'sluice_agent_api_errors_total', { api: 'control-plane', kind: 'authentication' }),
    1,
  );
  assert.equal(sample(m, 'sluice_agent_api_errors_total', forbidden), 2);
});

test("the reaper's listing gives pods and engine processes by phase, other kinds not", () => {
  const ref = (kind: string, phase?: string) => ({ buildId: 'b1', kind, name: 'x', phase });
  assert.deepEqual(
    podPhases([
      ref('Pod', 'Running'),
      ref('Pod', 'Pending'),
      ref('Pod', 'Running'),
      ref('Pod'),
      ref('PersistentVolumeClaim', 'Bound'),
      ref('Secret'),
      ref('EngineProcess', 'Stopping'),
    ]),
    { Running: 2, Pending: 1, Unknown: 1, Stopping: 1 },
  );
});

test('each warm pool’s pods, target and takes are exported from its counts at each scrape', async () => {
  let stats = { waiting: 2, starting: 1, target: 3, hits: 5, misses: 1 };
  const backends = [
    { runtime: 'k8s', warmPool: () => stats },
    { runtime: 'local', warmPool: undefined },
    { runtime: 'no-pool', warmPool: () => undefined },
  ];
  const metrics = createAgentMetrics({
    tasksHeld: () => 0,
    warmPools: () => warmPoolStats(backends),
  });
  let m = parseMetrics(await metrics.render());
  family(m, 'sluice_agent_warm_pool_pods', 'gauge');
  family(m, 'sluice_agent_warm_pool_target', 'gauge');
  family(m, 'sluice_agent_warm_pool_takes_total', 'counter');
  assert.equal(sample(m, 'sluice_agent_warm_pool_pods', { runtime: 'k8s', state: 'waiting' }), 2);
  assert.equal(sample(m, 'sluice_agent_warm_pool_pods', { runtime: 'k8s', state: 'starting' }), 1);
  assert.equal(sample(m, 'sluice_agent_warm_pool_target', { runtime: 'k8s' }), 3);
  assert.equal(
    sample(m, 'sluice_agent_warm_pool_takes_total', { runtime: 'k8s', outcome: 'hit' }),
    5,
  );
  assert.equal(
    sample(m, 'sluice_agent_warm_pool_takes_total', { runtime: 'k8s', outcome: 'miss' }),
    1,
  );
  assert.equal(sample(m, 'sluice_agent_warm_pool_target', { runtime: 'no-pool' }), undefined);

  stats = { waiting: 0, starting: 3, target: 3, hits: 8, misses: 1 };
  m = parseMetrics(await metrics.render());
  assert.equal(sample(m, 'sluice_agent_warm_pool_pods', { runtime: 'k8s', state: 'waiting' }), 0);
  assert.equal(
    sample(m, 'sluice_agent_warm_pool_takes_total', { runtime: 'k8s', outcome: 'hit' }),
    8,
  );
});
