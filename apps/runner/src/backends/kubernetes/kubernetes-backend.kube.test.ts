import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENT_PERMISSIONS, KubeClient, KubeResources } from '@sluice/kube';
import {
  adminSource,
  createNamespace,
  createServiceAccount,
  tokenSource,
} from '@sluice/kube/testing';
import { BUILD_LABELS, labelValue, MANAGED_BY_SLUICE, runtimeSelector } from '@sluice/labels';
import { silentLogger } from '@sluice/log';
import { eventually, useKubernetes } from '@sluice/testkit';
import type { KubernetesTarget } from '../../runner-config.js';
import { TaskFailure } from '../../runtime-backend.js';
import type { RuntimeBackend } from '../../runtime-backend.js';
import { createKubernetesBackend } from './kubernetes-backend.js';
import { WarmPool } from './warm-pool.js';
import { QUIET_AFTER_MISS_MS } from './warm-pool-size.js';
import {
  buildInput,
  createPriorityClass,
  createTasks,
  deletePriorityClass,
  deleteTasks,
  patchPodStatus,
  renderBuildObjects,
  runtimeSpec,
} from './kubernetes-backend.test-support.js';

// API-only: no node, so the build's pods stay Pending, which is all the agent's side needs.
const cluster = useKubernetes({ nodes: false });
const NS = 'builds';
// A name that is not a valid label value: the objects carry its hashed form.
const RUNTIME = 'prod-eks/sluice-builds';
const BUILD = '01j9zk3m8q4v7xw2b5n6c1d0ef';
const spec = () => runtimeSpec(RUNTIME, NS);
let prepared: Promise<void> | undefined;

async function admin(): Promise<{ backend: RuntimeBackend; kube: KubeClient }> {
  prepared ??= (async () => {
    await createNamespace(cluster(), NS);
    // The engine pod runs as sluice-engine; pods naming a missing account are refused.
    await createServiceAccount(cluster(), { namespace: NS, name: 'sluice-engine' });
  })();
  await prepared;
  const target: KubernetesTarget = {
    kind: 'kubernetes',
    name: RUNTIME,
    source: adminSource(cluster()),
    namespace: NS,
  };
  const backend = await createKubernetesBackend(target, {
    logger: silentLogger,
    qps: 50,
    burst: 100,
  });
  return { backend, kube: KubeClient.create({ source: adminSource(cluster()), env: {} }) };
}

async function applyAll(
  backend: RuntimeBackend,
  tasks: readonly Parameters<RuntimeBackend['apply']>[0][],
) {
  for (const task of tasks) await backend.apply(task, new AbortController().signal);
}

async function buildObjectNames(kube: KubeClient, buildId: string): Promise<string[]> {
  const kinds = ['Pod', 'PersistentVolumeClaim', 'Secret', 'ConfigMap'];
  const lists = await Promise.all(
    kinds.map((kind) =>
      kube.list({ kind, namespace: NS, labelSelector: `sluice.io/build-id=${buildId}` }),
    ),
  );
  return lists
    .flat()
    .map((o) => `${o.kind}/${o.name}`)
    .sort();
}

test("a build's tasks applied twice leave each object exactly once", async () => {
  const { backend, kube } = await admin();
  const objects = renderBuildObjects(spec(), buildInput(BUILD, RUNTIME));
  const tasks = createTasks(BUILD, objects, NS);
  await applyAll(backend, tasks);
  await applyAll(backend, tasks);
  assert.deepEqual(await buildObjectNames(kube, BUILD), [
    `ConfigMap/dind-config-${BUILD}`,
    `PersistentVolumeClaim/pvc-dind-${BUILD}`,
    `Pod/dind-${BUILD}`,
    `Pod/engine-${BUILD}`,
    `Secret/sluice-engine-${BUILD}`,
  ]);
  const services = await kube.list({ kind: 'Service', namespace: NS });
  assert.deepEqual(
    services.map((s) => s.name),
    ['sluice-dind'],
  );
});

test('the reaper lists the runtime’s build objects (not the Service, not another runtime’s) and deletes them all', async () => {
  const { backend, kube } = await admin();
  await applyAll(
    backend,
    createTasks(BUILD, renderBuildObjects(spec(), buildInput(BUILD, RUNTIME)), NS),
  );
  const other = renderBuildObjects(
    runtimeSpec('other/runtime', NS),
    buildInput('other-build', 'other/runtime'),
  );
  await kube.create(other.configMap);
  const refs = await backend.listBuildObjects();
  assert.deepEqual(
    refs.map((r) => `${r.buildId} ${r.kind}/${r.name} ${r.namespace}`).sort(),
    (await buildObjectNames(kube, BUILD)).map((name) => `${BUILD} ${name} ${NS}`),
  );
  await backend.deleteBuildObjects(refs);
  const left = await eventually(
    () => backend.listBuildObjects(),
    (list) => list.length === 0,
  );
  assert.deepEqual(left, []);
  await backend.deleteBuildObjects(refs);
  assert.deepEqual(await buildObjectNames(kube, 'other-build'), [
    'ConfigMap/dind-config-other-build',
  ]);
  assert.equal(
    (await kube.list({ kind: 'Service', namespace: NS })).length,
    1,
    'the shared Service stays',
  );
});

test('delete tasks remove a build, and applied again find nothing to do', async () => {
  const { backend, kube } = await admin();
  const build = 'delete-tasks-build';
  const objects = renderBuildObjects(spec(), buildInput(build, RUNTIME));
  await applyAll(backend, createTasks(build, objects, NS));
  assert.equal((await buildObjectNames(kube, build)).length, 5);
  await applyAll(backend, deleteTasks(build, objects, NS));
  await applyAll(backend, deleteTasks(build, objects, NS));
  const left = await eventually(
    () => buildObjectNames(kube, build),
    (names) => names.length === 0,
  );
  assert.deepEqual(left, []);
});

test('a malformed task or a manifest the API server refuses fails for good, with the reason', async () => {
  const { backend } = await admin();
  const objects = renderBuildObjects(spec(), buildInput('bad-build', RUNTIME));
  const [, , secretTask, , podTask] = createTasks('bad-build', objects, NS);
  assert.ok(secretTask && podTask);
  const signal = new AbortController().signal;
  await assert.rejects(
    backend.apply({ ...podTask, spec: secretTask.spec }, signal),
    (err: unknown) =>
      err instanceof TaskFailure &&
      !err.retriable &&
      /spec\.kind is "Secret", expected "Pod"/.test(err.message),
  );
  const badName = {
    ...secretTask.spec,
    metadata: { ...objects.secret.metadata, name: 'Not_A_Name' },
  };
  await assert.rejects(
    backend.apply({ ...secretTask, spec: badName }, signal),
    (err: unknown) =>
      err instanceof TaskFailure &&
      !err.retriable &&
      err.message.startsWith(
        `Could not create Secret ${NS}/Not_A_Name: the API server answered HTTP 422 Invalid`,
      ),
  );
});

test('health: ready as admin; an unprivileged service account is told what it lacks', async () => {
  const { backend } = await admin();
  const health = await backend.health();
  assert.equal(health.healthy, true, health.message);
  assert.equal(health.name, RUNTIME);
  assert.match(health.checks?.[0]?.message ?? '', /^Kubernetes v1\.20\.2 at https:/);
  const lacking = [
    { verb: 'delete', resource: 'pods' },
    { verb: 'create', resource: 'persistentvolumeclaims' },
  ];
  const granted = AGENT_PERMISSIONS.filter(
    (p) => !lacking.some((l) => l.verb === p.verb && l.resource === p.resource),
  );
  const token = await createServiceAccount(cluster(), {
    namespace: NS,
    name: 'half-agent',
    permissions: granted,
  });
  const target: KubernetesTarget = {
    kind: 'kubernetes',
    name: RUNTIME,
    source: { ...tokenSource(cluster(), token), file: 'half.runtime.yaml' },
  };
  const unprivileged = await createKubernetesBackend(target, {
    logger: silentLogger,
    qps: 50,
    burst: 100,
    namespace: NS,
  });
  const report = await unprivileged.health();
  assert.equal(report.healthy, false);
  assert.deepEqual(report.checks?.[1], {
    name: 'permissions',
    ok: false,
    message: `missing: delete pods, create persistentvolumeclaims in namespace ${NS}`,
  });
  assert.doesNotMatch(JSON.stringify(report), new RegExp(token.slice(0, 24)));
  const objects = renderBuildObjects(spec(), buildInput('half-build', RUNTIME));
  const [, pvcTask] = createTasks('half-build', objects, NS);
  assert.ok(pvcTask);
  await assert.rejects(
    unprivileged.apply(pvcTask, new AbortController().signal),
    (err: unknown) =>
      // Refused before the API server is asked, naming what is missing.
      err instanceof TaskFailure &&
      !err.retriable &&
      err.message.includes(
        `the agent may not delete pods, create persistentvolumeclaims in namespace ${NS}`,
      ),
  );
});

test('an API server that does not answer: unhealthy, and tasks are retriable', async () => {
  const target: KubernetesTarget = {
    kind: 'kubernetes',
    name: 'down',
    source: { type: 'token', host: 'https://127.0.0.1:1', token: 'x', file: 'down.runtime.yaml' },
    namespace: NS,
  };
  const backend = await createKubernetesBackend(target, {
    logger: silentLogger,
    qps: 50,
    burst: 100,
  });
  const health = await backend.health();
  assert.equal(health.healthy, false);
  assert.match(health.checks?.[0]?.message ?? '', /ECONNREFUSED/);
  assert.equal(health.checks?.[1]?.message, 'not checked: the API server did not answer');
  const objects = renderBuildObjects(spec(), buildInput('down-build', 'down'));
  const [first] = deleteTasks('down-build', objects, NS);
  assert.ok(first);
  await assert.rejects(
    backend.apply(first, new AbortController().signal),
    (err: unknown) =>
      err instanceof TaskFailure && err.retriable && /ECONNREFUSED/.test(err.message),
  );
  await assert.rejects(
    createKubernetesBackend(
      { ...target, source: { type: 'kubeconfig', path: '/nonexistent/kubeconfig' } },
      { logger: silentLogger, qps: 50, burst: 100 },
    ),
    /Kubeconfig \/nonexistent\/kubeconfig could not be read/,
  );
});

test('a claim of an Immediate class is bound before its task ends (its pod is then scheduled at once); a WaitForFirstConsumer claim is not waited for', async () => {
  const { backend } = await admin();
  const resources = new KubeResources(
    KubeClient.create({ source: adminSource(cluster()), env: {} }),
  );
  for (const [name, mode] of [
    ['agent-immediate', 'Immediate'],
    ['agent-wait', 'WaitForFirstConsumer'],
  ] as const)
    await resources.create({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name },
      provisioner: 'kubernetes.io/no-provisioner',
      volumeBindingMode: mode,
    });
  const phaseOf = async (name: string) => {
    const claim = await resources.read({ kind: 'PersistentVolumeClaim', namespace: NS, name });
    return (claim?.['status'] as { phase?: string } | undefined)?.phase;
  };
  const claimTask = (build: string, storageClassName: string) => {
    const objects = renderBuildObjects(spec(), buildInput(build, RUNTIME));
    const pvc = {
      ...objects.pvc,
      spec: { ...(objects.pvc.spec as object), storageClassName },
    };
    const task = createTasks(build, { ...objects, pvc }, NS)[1];
    assert.equal(task?.type, 'CreatePvc');
    return { task, name: pvc.metadata.name };
  };

  // The volume appears a second after the claim, as a provisioner's would.
  const immediate = claimTask('bind-immediate', 'agent-immediate');
  let volumeMadeAt = 0;
  const volume = setTimeout(() => {
    volumeMadeAt = Date.now();
    void resources.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'agent-immediate-volume' },
      spec: {
        storageClassName: 'agent-immediate',
        capacity: { storage: '100Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/tmp/agent-immediate-volume' },
      },
    });
  }, 1000);
  try {
    await backend.apply(immediate.task, new AbortController().signal);
  } finally {
    clearTimeout(volume);
  }
  assert.ok(volumeMadeAt > 0, 'the task ended before the claim could be bound');
  assert.equal(await phaseOf(immediate.name), 'Bound');

  const waiting = claimTask('bind-wait', 'agent-wait');
  const started = Date.now();
  await backend.apply(waiting.task, new AbortController().signal);
  assert.equal(await phaseOf(waiting.name), 'Pending');
  assert.ok(Date.now() - started < 5_000, 'a WaitForFirstConsumer claim was waited for');
});

const POOL_RUNTIME = 'warm/pool';
const POOL_PRIORITY = 'sluice-warm-pool-kube-test';
const ORPHAN_RUNTIME = 'warm/orphans';

/**
 * A pool pod made ready as the kubelet would (this cluster has no node to run it); the
 * scheduler's own conditions stay, so it has nothing to write again.
 */
async function markReady(kube: KubeClient, name: string): Promise<void> {
  const status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
  await patchPodStatus(kube, { namespace: NS, name }, status);
}

test('the warm pool fills once a build showed its objects, gives each pod to one build only, refills with low priority and shrinks when idle', async () => {
  const { kube } = await admin();
  // Real workloads preempt the pool's pods.
  await createPriorityClass(kube, { name: POOL_PRIORITY, value: -1000 });
  let now = 1_000_000;
  const pool = WarmPool.create({
    kube,
    runtime: POOL_RUNTIME,
    namespace: NS,
    logger: silentLogger,
    settings: {
      mode: 'fixed',
      minSize: 1,
      maxSize: 3,
      windowMs: 60_000,
      idleMs: 300_000,
      priorityClassName: POOL_PRIORITY,
    },
    clock: () => now,
  });
  const pods = (state: 'waiting' | 'taken') =>
    kube.listPods({ namespace: NS, labelSelector: pool.selector(state) });
  const byName = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
  try {
    // Nothing is known of the runtime's pods yet: the pool makes none, and a build misses.
    assert.deepEqual(await pool.reconcile(), { created: 0, removed: 0, moved: 0 });
    assert.equal(await pool.take('build-0'), undefined);
    // That build's objects, as the agent applies them, teach the pool its pods.
    const objects = renderBuildObjects(
      runtimeSpec(POOL_RUNTIME, NS),
      buildInput('build-0', POOL_RUNTIME),
    );
    for (const object of [objects.pvc, objects.configMap, objects.dindPod, objects.enginePod])
      pool.learn(object);
    assert.deepEqual(await pool.reconcile(), { created: 3, removed: 0, moved: 0 });
    const waiting = await pods('waiting');
    assert.equal(waiting.length, 3);
    // Each pod has a claim of its own name, made before it and owned by it once it was made,
    // and the claim a Secret of that name: all three go with the pod.
    const owned = await kube.listClaims({
      namespace: NS,
      labelSelector: runtimeSelector(POOL_RUNTIME),
    });
    assert.deepEqual(
      owned.map((c) => c.metadata.name).sort(),
      waiting.map((p) => p.metadata.name).sort(),
    );
    for (const pod of waiting) {
      const { name, uid } = pod.metadata;
      assert.deepEqual(await ownersOf(kube, 'persistentvolumeclaims', name), [
        `Pod/${name}/${uid}`,
      ]);
      const [claimOwner] = await ownersOf(kube, 'secrets', name);
      assert.match(claimOwner ?? '', new RegExp(`^PersistentVolumeClaim/${name}/`));
    }
    for (const pod of waiting) await markReady(kube, pod.metadata.name);

    // Five builds race for three pods: three win, each a different pod, two go elsewhere.
    const builds = ['build-1', 'build-2', 'build-3', 'build-4', 'build-5'];
    const taken = await Promise.all(builds.map((id) => pool.take(id)));
    const won = taken.filter((name): name is string => name !== undefined);
    assert.equal(won.length, 3);
    assert.equal(new Set(won).size, 3);
    const expected = builds.flatMap((id, i) => (taken[i] === undefined ? [] : [[taken[i], id]]));
    const holders = (await pods('taken')).map((pod) => [
      pod.metadata.name,
      pod.metadata.labels?.['sluice.io/build-id'],
    ]);
    assert.deepEqual(holders.sort(byName), expected.sort(byName));
    // Their claims carry the builds' ids too (written beside the handover): the cache record is
    // the build's.
    const claims = await eventually(
      () =>
        kube.listClaims({
          namespace: NS,
          labelSelector: `${runtimeSelector(POOL_RUNTIME)},sluice.io/build-id`,
        }),
      (list) => list.length === expected.length,
    );
    assert.deepEqual(
      claims.map((c) => [c.metadata.name, c.metadata.labels?.['sluice.io/build-id']]).sort(byName),
      expected.sort(byName),
    );
    // The counts of the last pass (three starting), and every take since.
    assert.deepEqual(pool.stats(), { waiting: 0, starting: 3, target: 3, hits: 3, misses: 3 });
    const first = taken.findIndex((name) => name !== undefined);
    const winner = builds[first] ?? '';
    assert.equal((await pool.heldBy(winner))?.metadata.name, taken[first]);

    // Two builds missed: the pool makes nothing while builds miss (their own pods go first),
    // and refills once none has for a while; the pods carry the low priority.
    assert.deepEqual(await pool.reconcile(), { created: 0, removed: 0, moved: 0 });
    now += QUIET_AFTER_MISS_MS;
    assert.deepEqual(await pool.reconcile(), { created: 3, removed: 0, moved: 0 });
    const refilled = await kube.request<{ items: { spec: { priority?: number } }[] }>(
      'list',
      { kind: 'Pod', namespace: NS },
      {
        method: 'GET',
        path: `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent(pool.selector('waiting'))}`,
      },
    );
    assert.deepEqual(
      refilled?.items.map((pod) => pod.spec.priority),
      [-1000, -1000, -1000],
    );

    // Idle: back to the minimum; the builds' pods are theirs and stay.
    now += 300_000;
    assert.deepEqual(await pool.reconcile(), { created: 0, removed: 2, moved: 0 });
    const left = await eventually(
      () => pods('waiting'),
      (list) => list.length === 1,
    );
    assert.equal(left.length, 1);
    assert.equal((await pods('taken')).length, 3);
    // A build's end takes its pool pod with it.
    assert.equal(await pool.release(winner), taken[first]);
    assert.equal(await pool.heldBy(winner), undefined);
  } finally {
    const selector = runtimeSelector(POOL_RUNTIME);
    for (const kind of ['Pod', 'PersistentVolumeClaim', 'Secret'])
      for (const object of await kube.list({ kind, namespace: NS, labelSelector: selector }))
        await kube.delete({ kind, namespace: NS, name: object.name });
    await deletePriorityClass(kube, POOL_PRIORITY);
  }
});

/** An object's owners, as `Kind/name/uid`. */
async function ownersOf(
  kube: KubeClient,
  resource: 'persistentvolumeclaims' | 'secrets',
  name: string,
): Promise<string[]> {
  const object = await kube.request<{
    metadata: { ownerReferences?: { kind: string; name: string; uid: string }[] };
  }>(
    'read',
    { kind: resource === 'secrets' ? 'Secret' : 'PersistentVolumeClaim', namespace: NS, name },
    { method: 'GET', path: `/api/v1/namespaces/${NS}/${resource}/${name}` },
  );
  return (object?.metadata.ownerReferences ?? []).map((o) => `${o.kind}/${o.name}/${o.uid}`);
}

test('a pool claim whose pod never owned it is left while young, then given to its pod, or removed when it has none', async () => {
  const { kube } = await admin();
  const resources = new KubeResources(
    KubeClient.create({ source: adminSource(cluster()), env: {} }),
  );
  const labels = {
    [BUILD_LABELS.managedBy]: MANAGED_BY_SLUICE,
    [BUILD_LABELS.runtime]: labelValue(ORPHAN_RUNTIME),
  };
  const claim = (name: string) => ({
    apiVersion: 'v1' as const,
    kind: 'PersistentVolumeClaim' as const,
    metadata: { name, namespace: NS, labels, annotations: { 'sluice.io/warm-pool-shape': 'x' } },
    spec: {
      storageClassName: 'orphan-test-class',
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
    },
  });
  // The agent stopped after the claims: one pod was made, the other never was.
  await resources.create(claim('warm-pool-lost'));
  await resources.create(claim('warm-pool-found'));
  await resources.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'warm-pool-found', namespace: NS, labels },
    spec: {
      serviceAccountName: 'sluice-engine',
      containers: [{ name: 'c', image: 'sluice/busybox:1' }],
    },
  });
  const pod = await resources.read({ kind: 'Pod', namespace: NS, name: 'warm-pool-found' });
  const poolAt = (offsetMs: number) =>
    WarmPool.create({
      kube,
      runtime: ORPHAN_RUNTIME,
      namespace: NS,
      logger: silentLogger,
      settings: { mode: 'fixed', minSize: 0, maxSize: 0, windowMs: 60_000, idleMs: 300_000 },
      clock: () => Date.now() + offsetMs,
    });
  const present = async (name: string) => {
    const read = await resources.read({ kind: 'PersistentVolumeClaim', namespace: NS, name });
    return read !== undefined && read.metadata['deletionTimestamp'] === undefined;
  };
  try {
    // Younger than a minute: they may be a member being made (by another agent).
    assert.deepEqual(await poolAt(0).reconcile(), { created: 0, removed: 0, moved: 0 });
    assert.ok(await present('warm-pool-lost'));
    assert.deepEqual(await ownersOf(kube, 'persistentvolumeclaims', 'warm-pool-found'), []);
    // A minute later: the one with a pod is its pod's, the other is removed.
    assert.deepEqual(await poolAt(61_000).reconcile(), { created: 0, removed: 1, moved: 0 });
    assert.equal(await present('warm-pool-lost'), false);
    assert.deepEqual(await ownersOf(kube, 'persistentvolumeclaims', 'warm-pool-found'), [
      `Pod/warm-pool-found/${String(pod?.metadata['uid'])}`,
    ]);
  } finally {
    for (const kind of ['Pod', 'PersistentVolumeClaim'])
      for (const object of await kube.list({
        kind,
        namespace: NS,
        labelSelector: runtimeSelector(ORPHAN_RUNTIME),
      }))
        await kube.delete({ kind, namespace: NS, name: object.name });
  }
});
