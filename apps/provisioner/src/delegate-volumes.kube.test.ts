/**
 * Delegated volumes (`volumeBackend: delegate`) on a real single-node cluster: new volumes come
 * from a StorageClass served by a real dynamic provisioner, the controller-manager's own
 * `kubernetes.io/host-path` one (the testkit starts it with `--enable-hostpath-provisioner`), as
 * a cloud's CSI driver would make disks; zones are simulated with `topology.kubernetes.io/zone`
 * on the node. A volume of zone A is never given to a claim whose pod runs in zone B; the reuse
 * scopes as for local volumes; retention deletes through the delegate; a leader killed mid-
 * handover gives no volume to two claims. The pure decisions are in delegate-volumes.test.ts.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { KubeClient, KubeResources } from '@sluice/kube';
import type { KubeResource, ResourceRef } from '@sluice/kube';
import { adminSource } from '@sluice/kube/testing';
import { silentLogger } from '@sluice/log';
import { CACHE_ANNOTATIONS, REUSE_ANNOTATIONS } from '@sluice/runtime-spec';
import { CLUSTER_IMAGES, eventually, useKubernetes } from '@sluice/testkit';
import { DELEGATE_FOR_LABEL } from './delegate-volumes.js';
import { VOLUME_ANNOTATIONS } from './volume-objects.js';
import { volumeTestKit } from './volume-cluster.test-support.js';
import { VolumeProvisioner } from './volume-provisioner.js';
import { ZONE_LABEL } from './zones.js';

const cluster = useKubernetes({ nodes: true, images: [CLUSTER_IMAGES.busybox] });
const PROVISIONER = 'sluice.io/volumes-delegate-test';
const { NS, WAIT, NOW, OURS, kube, provisioner, claim, pod, read, podPhase, boundVolume, remove } =
  volumeTestKit(cluster, {
    namespace: 'delegate-volumes',
    provisioner: PROVISIONER,
    classPrefix: 'sluice-delegating',
  });

/** The delegate classes, as a cloud's: the host-path provisioner, reclaim policy Delete. */
const DELEGATE_WAIT = 'host-path-wait';
const DELEGATE_NOW = 'host-path-now';
/**
 * The retention test's own class (so its own Lease): its provisioner's clock runs days ahead,
 * and so would its lease's renewal time.
 */
const LATER = 'sluice-delegating-later';

async function withDelegates(): Promise<KubeResources> {
  const r = await kube();
  for (const [name, mode] of [
    [DELEGATE_WAIT, 'WaitForFirstConsumer'],
    [DELEGATE_NOW, 'Immediate'],
  ] as const)
    await r.create({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name },
      provisioner: 'kubernetes.io/host-path',
      volumeBindingMode: mode,
      reclaimPolicy: 'Delete',
    });
  await r.create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: LATER },
    provisioner: PROVISIONER,
    volumeBindingMode: 'Immediate',
    reclaimPolicy: 'Retain',
  });
  return r;
}

function delegating(storageClass: string, delegate: string, identity: string, more = {}) {
  return provisioner(storageClass, identity, 15_000, undefined, {
    delegateStorageClass: delegate,
    ...more,
  });
}

function running(p: VolumeProvisioner): { stop: () => Promise<void> } {
  const controller = new AbortController();
  const done = p.run(controller.signal);
  return {
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

async function setZone(zone: string | null): Promise<void> {
  const r = await kube();
  await r.patch(
    { kind: 'Node', name: cluster().nodeName ?? '' },
    { metadata: { labels: { [ZONE_LABEL]: zone } } },
  );
}

async function volume(name: string): Promise<KubeResource | undefined> {
  return (await kube()).read({ kind: 'PersistentVolume', name });
}

interface PvSpec {
  hostPath?: { path: string };
  storageClassName?: string;
  persistentVolumeReclaimPolicy?: string;
  nodeAffinity?: unknown;
}
const specOf = (pv: KubeResource | undefined) => (pv?.['spec'] ?? {}) as PvSpec;

/** Released: its claim gone, the provisioner has cleared its user. */
async function released(name: string): Promise<void> {
  const pv = await eventually(
    () => volume(name),
    (v) => v?.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy] === undefined,
    { timeoutMs: 30_000 },
  );
  assert.equal(pv?.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy], undefined);
}

async function helpersLeft(): Promise<string[]> {
  const r = await kube();
  return (
    await r.list({
      kind: 'PersistentVolumeClaim',
      namespace: NS,
      labelSelector: DELEGATE_FOR_LABEL,
    })
  ).map((c) => c.metadata.name);
}

test('a volume of zone A is never given to a pod in zone B: zone B gets a new one from the delegate, zone A its warm one', async () => {
  const r = await withDelegates();
  const p = running(delegating(WAIT, DELEGATE_WAIT, 'zones'));
  const labels = { app: 'dind', pipeline: 'zones' };
  try {
    await setZone('zone-a');
    await r.create(claim('za-1', WAIT, labels));
    await r.create(pod('za-1', 'za-1', 'echo warm > /data/marker'));
    assert.equal(await podPhase('za-1'), 'Succeeded');
    const warm = await boundVolume('za-1');
    const pv = await volume(warm);
    // The host-path provisioner's volume, adopted: Retain, the runtime's class, zone A.
    assert.equal(
      pv?.metadata.annotations?.['pv.kubernetes.io/provisioned-by'],
      'kubernetes.io/host-path',
    );
    assert.equal(specOf(pv).persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(specOf(pv).storageClassName, WAIT);
    assert.equal(pv?.metadata.labels?.[ZONE_LABEL], 'zone-a');
    assert.deepEqual(specOf(pv).nodeAffinity, {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: ZONE_LABEL, operator: 'In', values: ['zone-a'] }] },
        ],
      },
    });
    assert.ok(existsSync(`${specOf(pv).hostPath?.path}/marker`), 'the pod wrote on the disk');
    assert.deepEqual(await helpersLeft(), [], 'the helper claim is gone');
    await remove('Pod', 'za-1');
    await remove('PersistentVolumeClaim', 'za-1');
    await released(warm);

    // The node moves to zone B: the warm volume is not for it.
    await setZone('zone-b');
    await r.create(claim('zb-1', WAIT, labels));
    await r.create(pod('zb-1', 'zb-1', 'test ! -e /data/marker'));
    assert.equal(await podPhase('zb-1'), 'Succeeded', 'zone B starts cold');
    const cold = await boundVolume('zb-1');
    assert.notEqual(cold, warm);
    assert.equal((await volume(cold))?.metadata.labels?.[ZONE_LABEL], 'zone-b');
    const miss = await read('PersistentVolumeClaim', 'zb-1');
    assert.equal(miss?.metadata.annotations?.[CACHE_ANNOTATIONS.outcome], 'miss');
    assert.equal(
      miss?.metadata.annotations?.[CACHE_ANNOTATIONS.reason],
      `new: no matching volume in zone zone-b of node ${cluster().nodeName}`,
    );
    assert.equal(
      (await volume(warm))?.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy],
      undefined,
    );
    await remove('Pod', 'zb-1');
    await remove('PersistentVolumeClaim', 'zb-1');

    // Back in zone A: the warm volume again.
    await setZone('zone-a');
    await r.create(claim('za-2', WAIT, labels));
    await r.create(pod('za-2', 'za-2', 'test "$(cat /data/marker)" = warm'));
    assert.equal(await podPhase('za-2'), 'Succeeded', "the pod read zone A's warm volume");
    assert.equal(await boundVolume('za-2'), warm);
    const hit = await read('PersistentVolumeClaim', 'za-2');
    assert.equal(hit?.metadata.annotations?.[CACHE_ANNOTATIONS.outcome], 'hit');
    await remove('Pod', 'za-2');
    await remove('PersistentVolumeClaim', 'za-2');
  } finally {
    await p.stop();
    await setZone(null);
  }
});

test('the reuse scopes with delegated volumes: account, project, pipeline, pipeline+branch, pipeline+trigger', async () => {
  const r = await withDelegates();
  const run = running(delegating(NOW, DELEGATE_NOW, 'scopes'));
  const scopes: Array<[string, Record<string, string>, Record<string, string>]> = [
    ['app,account', { project: 'pr2', pipeline: 'p2' }, { account: 'other' }],
    ['app,account,project', { pipeline: 'p2', branch: 'dev' }, { project: 'pr2' }],
    ['app,account,pipeline', { branch: 'dev', trigger: 't2' }, { pipeline: 'p2' }],
    ['app,account,pipeline,branch', { trigger: 't2' }, { branch: 'dev' }],
    ['app,account,pipeline,trigger', { branch: 'dev' }, { trigger: 't2' }],
  ];
  const use = async (name: string, labels: Record<string, string>, selector: string) => {
    const c = claim(name, NOW, labels);
    c.metadata.annotations = { [REUSE_ANNOTATIONS.selector]: selector };
    await r.create(c);
    const made = await boundVolume(name);
    assert.equal(specOf(await volume(made)).hostPath?.path.startsWith('/tmp/'), true);
    await remove('PersistentVolumeClaim', name);
    await released(made);
    return made;
  };
  try {
    for (const [i, [selector, within, outside]] of scopes.entries()) {
      const labels = {
        app: 'dind',
        account: `d-scope-${i}`,
        project: 'pr1',
        pipeline: 'p1',
        branch: 'main',
        trigger: 't1',
      };
      const first = await use(`d-scope-${i}-first`, labels, selector);
      const kept = await use(`d-scope-${i}-kept`, { ...labels, ...within }, selector);
      assert.equal(kept, first, `${selector}: ${JSON.stringify(within)} keeps the volume`);
      const left = await use(`d-scope-${i}-left`, { ...labels, ...outside }, selector);
      assert.notEqual(left, first, `${selector}: ${JSON.stringify(outside)} gets another`);
    }
    assert.deepEqual(await helpersLeft(), []);
  } finally {
    await run.stop();
  }
});

test('retention deletes through the delegate: its driver removes the disk, then the volume goes; a younger one stays', async () => {
  const r = await withDelegates();
  const labels = { app: 'dind', pipeline: 'retention' };
  const run = running(delegating(LATER, DELEGATE_NOW, 'retention-setup'));
  const made: string[] = [];
  try {
    for (const name of ['ret-old', 'ret-young']) {
      await r.create(claim(name, LATER, { ...labels, branch: name }));
      made.push(await boundVolume(name));
    }
    for (const name of ['ret-old', 'ret-young']) await remove('PersistentVolumeClaim', name);
    for (const name of made) await released(name);
  } finally {
    await run.stop();
  }
  const [old, young] = made as [string, string];
  // The younger one: last used 3 days before the later clock below.
  const DAY = 86_400_000;
  await r.patch(
    { kind: 'PersistentVolume', name: young },
    {
      metadata: {
        annotations: {
          [VOLUME_ANNOTATIONS.lastUsed]: new Date(Date.now() + 2 * DAY).toISOString(),
        },
      },
    },
  );
  const path = specOf(await volume(old)).hostPath?.path ?? '';
  assert.ok(existsSync(path), `the disk is there: ${path}`);
  const later = delegating(LATER, DELEGATE_NOW, 'retention', {
    clock: () => Date.now() + 5 * DAY,
  });
  const report = await later.pass();
  // The earlier tests' volumes are of the same provisioner, and as old: they go too.
  assert.ok(report.expired.includes(old), `expired: ${report.expired.join(' ')}`);
  assert.ok(!report.expired.includes(young), 'the younger one stays');
  const gone = await eventually(
    () => volume(old),
    (pv) => pv === undefined,
    { timeoutMs: 60_000 },
  );
  assert.equal(gone, undefined, 'the controller-manager deleted the volume after its disk');
  assert.equal(existsSync(path), false, "the host-path provisioner's deleter removed the disk");
  const kept = await volume(young);
  assert.equal(specOf(kept).persistentVolumeReclaimPolicy, 'Retain', 'the younger one stays');
  // Deleting it by hand the same way: back to its class, Delete.
  await r.patch(
    { kind: 'PersistentVolume', name: young },
    { spec: { persistentVolumeReclaimPolicy: 'Delete', storageClassName: DELEGATE_NOW } },
  );
  assert.equal(
    await eventually(
      () => volume(young),
      (pv) => pv === undefined,
      { timeoutMs: 60_000 },
    ),
    undefined,
  );
});

/**
 * The cluster's objects, as a provisioner sees them until it is killed: the write that kills it
 * (its `after`-th patch of a volume) is made, then it dies before anything else.
 */
class KilledAfter extends KubeResources {
  #patches = 0;
  readonly #after: number;
  constructor(after: number) {
    super(KubeClient.create({ source: adminSource(cluster()), env: {} }));
    this.#after = after;
  }

  override async patch(
    ref: ResourceRef,
    patch: Record<string, unknown>,
    options?: Parameters<KubeResources['patch']>[2],
  ): Promise<KubeResource | undefined> {
    if (this.#patches >= this.#after) throw new Error('killed');
    const written = await super.patch(ref, patch, options);
    if (ref.kind === 'PersistentVolume' && ++this.#patches === this.#after)
      throw new Error('the provisioner was killed right after this write');
    return written;
  }
}

test('a leader killed mid-handover: the standby finishes, and no volume goes to two claims', async () => {
  const r = await withDelegates();
  const labels = { app: 'dind', pipeline: 'killed' };
  const warm: string[] = [];
  const setup = running(delegating(NOW, DELEGATE_NOW, 'killed-setup'));
  try {
    for (const name of ['warm-0', 'warm-1', 'warm-2']) {
      await r.create(claim(name, NOW, labels));
      warm.push(await boundVolume(name));
    }
    for (const name of ['warm-0', 'warm-1', 'warm-2']) await remove('PersistentVolumeClaim', name);
    for (const name of warm) await released(name);
  } finally {
    await setup.stop();
  }
  const claims = Array.from({ length: 6 }, (_, i) => `killed-${i}`);
  for (const name of claims) await r.create(claim(name, NOW, labels));
  // The leader's 1st pass hands the 3 warm volumes over and asks the delegate for 3; its 2nd
  // adopts the first new one and is killed right after adopting the second.
  const leader = new VolumeProvisioner({
    resources: new KilledAfter(5),
    log: silentLogger,
    provisionerName: PROVISIONER,
    storageClass: NOW,
    namespace: NS,
    identity: 'killed-leader',
    leaseDurationMs: 3000,
    delegateStorageClass: DELEGATE_NOW,
  });
  const first = await leader.pass();
  assert.equal(first.reused.length, 3);
  await eventually(
    async () =>
      (
        await r.list({
          kind: 'PersistentVolumeClaim',
          namespace: NS,
          labelSelector: DELEGATE_FOR_LABEL,
        })
      ).filter((c) => (c['spec'] as { volumeName?: string }).volumeName),
    (bound) => bound.length === 3,
    { timeoutMs: 60_000 },
  );
  await assert.rejects(leader.pass(), /killed right after this write/);
  const standby = running(
    delegating(NOW, DELEGATE_NOW, 'killed-standby', { leaseDurationMs: 3000 }),
  );
  try {
    const volumes = await Promise.all(claims.map(boundVolume));
    assert.equal(new Set(volumes).size, 6, `one volume per claim: ${volumes.join(' ')}`);
    assert.deepEqual(warm.filter((v) => volumes.includes(v)).sort(), [...warm].sort());
    const ours = (await r.list({ kind: 'PersistentVolume', labelSelector: OURS })).filter(
      (pv) => pv.metadata.labels?.['pipeline'] === 'killed',
    );
    assert.equal(ours.length, 6, 'no volume made twice');
    const refs = ours.map((pv) => (pv['spec'] as { claimRef?: { name?: string } }).claimRef?.name);
    assert.deepEqual(refs.sort(), [...claims].sort(), 'each volume promised to one claim');
    assert.deepEqual(
      await eventually(helpersLeft, (left) => left.length === 0, { timeoutMs: 30_000 }),
      [],
      'no helper claim left behind',
    );
    const stray = (await r.list({ kind: 'PersistentVolume' })).filter(
      (pv) =>
        specOf(pv).storageClassName === DELEGATE_NOW &&
        pv.metadata.annotations?.[VOLUME_ANNOTATIONS.delegateClass] === undefined,
    );
    assert.deepEqual(
      stray.map((pv) => pv.metadata.name),
      [],
      'no delegate volume unadopted',
    );
    for (const name of claims) await remove('PersistentVolumeClaim', name);
  } finally {
    await standby.stop();
  }
});
