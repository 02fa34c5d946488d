import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '@sluice/kube';
import { adminSource, createNamespace, createServiceAccount } from '@sluice/kube/testing';
import { runtimeSelector } from '@sluice/labels';
import { silentLogger } from '@sluice/log';
import { eventually, useKubernetes } from '@sluice/testkit';
import type { KubernetesTarget } from '../../runner-config.js';
import { createKubernetesBackend } from './kubernetes-backend.js';
import { WarmPool } from './warm-pool.js';
import type { WarmPoolSettings } from './warm-pool-size.js';
import {
  buildInput,
  createPriorityClass,
  createTasks,
  deletePriorityClass,
  patchPodStatus,
  renderBuildObjects,
  runtimeSpec,
} from './kubernetes-backend.test-support.js';

// API-only: no node, so pods stay Pending; the scheduler's verdict is written as a node short
// of CPU would make it.
const cluster = useKubernetes({ nodes: false });
const NS = 'pool-room';
const RUNTIME = 'warm/room';
const POOL_CLASS = 'sluice-warm-pool-room-test';
const BUILD_CLASS = 'sluice-build-room-test';

interface PodRead {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { priorityClassName?: string; priority?: number; preemptionPolicy?: string };
  status?: { conditions?: { type: string; status: string; reason?: string }[] };
}

async function listPods(kube: KubeClient, selector: string): Promise<PodRead[]> {
  const list = await kube.request<{ items: PodRead[] }>(
    'list',
    { kind: 'Pod', namespace: NS },
    {
      method: 'GET',
      path: `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent(selector)}`,
    },
  );
  return list?.items ?? [];
}

test('a build that misses the pool makes its pods at a priority that never preempts, and while they wait for room the pool yields its waiting pods, not the taken ones', async () => {
  const kube = KubeClient.create({ source: adminSource(cluster()), env: {} });
  await createNamespace(cluster(), NS);
  await createServiceAccount(cluster(), { namespace: NS, name: 'sluice-engine' });
  await createPriorityClass(kube, { name: POOL_CLASS, value: -1000 });
  await createPriorityClass(kube, { name: BUILD_CLASS, value: 0, preemptionPolicy: 'Never' });
  const settings: WarmPoolSettings = {
    mode: 'fixed',
    minSize: 0,
    maxSize: 2,
    windowMs: 60_000,
    idleMs: 300_000,
    priorityClassName: POOL_CLASS,
    buildPriorityClassName: BUILD_CLASS,
  };
  const target: KubernetesTarget = {
    kind: 'kubernetes',
    name: RUNTIME,
    source: adminSource(cluster()),
    namespace: NS,
    warmPool: settings,
  };
  const backend = await createKubernetesBackend(target, {
    logger: silentLogger,
    qps: 50,
    burst: 100,
  });
  const objects = renderBuildObjects(runtimeSpec(RUNTIME, NS), buildInput('room-1', RUNTIME));
  const pool = WarmPool.create({
    kube,
    runtime: RUNTIME,
    namespace: NS,
    logger: silentLogger,
    settings,
  });
  const poolPods = (state: 'waiting' | 'taken') => listPods(kube, pool.selector(state));
  try {
    // The first build finds no pool: its own dind and engine pods carry the build class, which
    // the API server turned into priority 0 that never preempts.
    for (const task of createTasks('room-1', objects, NS))
      await backend.apply(task, new AbortController().signal);
    const own = await listPods(
      kube,
      'sluice.io/build-id=room-1,sluice.io/component in (engine,dind)',
    );
    assert.deepEqual(
      own
        .map((p) => {
          const { priorityClassName, priority, preemptionPolicy } = p.spec;
          const component = p.metadata.labels?.['sluice.io/component'];
          return [component, priorityClassName, priority, preemptionPolicy];
        })
        .sort(),
      [
        ['dind', BUILD_CLASS, 0, 'Never'],
        ['engine', BUILD_CLASS, 0, 'Never'],
      ],
    );

    // The pool, taught by that build, makes its two pods (no build waits for room yet: the
    // scheduler says the cluster has no node, not that a node is full). One is taken.
    // (This pool stands for the agent's: it counts the build's arrival, a miss before the
    // pool knew its pods, and learns them from its objects.)
    assert.equal(await pool.take('room-1'), undefined);
    for (const object of [objects.pvc, objects.configMap, objects.dindPod, objects.enginePod])
      pool.learn(object);
    assert.deepEqual(await pool.reconcile(), { created: 2, removed: 0, moved: 0 });
    const made = await poolPods('waiting');
    for (const pod of made)
      await patchPodStatus(
        kube,
        { namespace: NS, name: pod.metadata.name },
        {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True' }],
        },
      );
    const taken = await pool.take('room-2');
    assert.ok(taken !== undefined, 'a ready pod taken');

    // Another build's dind pod waits for room. No scheduler serves it (this cluster's would
    // write that it has no node), so its verdict is written as a full node's scheduler would.
    const third = renderBuildObjects(runtimeSpec(RUNTIME, NS), buildInput('room-3', RUNTIME));
    const dind = third.dindPod.metadata.name;
    await kube.create({
      ...third.dindPod,
      spec: { ...(third.dindPod.spec as object), schedulerName: 'no-scheduler-of-this-test' },
    });
    await patchPodStatus(
      kube,
      { namespace: NS, name: dind },
      {
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message: '0/1 nodes are available: 1 Insufficient cpu.',
          },
        ],
      },
    );
    // The pool yields the pod still waiting and makes none; the taken one stays with its build.
    assert.deepEqual(await pool.reconcile(), { created: 0, removed: 1, moved: 0 });
    const left = await eventually(
      () => poolPods('waiting'),
      (pods) => pods.length === 0,
    );
    assert.deepEqual(left, []);
    assert.deepEqual(
      (await poolPods('taken')).map((p) => p.metadata.name),
      [taken],
    );
    assert.deepEqual(pool.stats(), { waiting: 0, starting: 0, target: 2, hits: 1, misses: 1 });
  } finally {
    for (const kind of ['Pod', 'PersistentVolumeClaim', 'Secret', 'ConfigMap'])
      for (const object of await kube.list({
        kind,
        namespace: NS,
        labelSelector: runtimeSelector(RUNTIME),
      }))
        await kube.delete({ kind, namespace: NS, name: object.name });
    await deletePriorityClass(kube, POOL_CLASS);
    await deletePriorityClass(kube, BUILD_CLASS);
  }
});
