import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, KubeResources } from '@sluice/kube';
import type { KubeResource } from '@sluice/kube';
import { adminSource, createNamespace } from '@sluice/kube/testing';
import { silentLogger } from '@sluice/log';
import { CACHE_ANNOTATIONS, labelValue, REUSE_ANNOTATIONS } from '@sluice/runtime-spec';
import { CLUSTER_IMAGES, eventually, useKubernetes } from '@sluice/testkit';
import { NodeAgent } from './node-agent.js';
import { VolumeProvisioner } from './volume-provisioner.js';
import { PROVISIONER_LABEL, SPARE_LABEL, VOLUME_ANNOTATIONS } from './volume-objects.js';

// One cluster with a node: the controller-manager binds the claims, the kubelet mounts them.
const cluster = useKubernetes({ nodes: true, images: [CLUSTER_IMAGES.busybox] });
const NS = 'volumes';
const PROVISIONER = 'sluice.io/volumes-test';
let resources: KubeResources | undefined;

async function kube(): Promise<KubeResources> {
  if (resources !== undefined) return resources;
  await createNamespace(cluster(), NS);
  const client = KubeClient.create({ source: adminSource(cluster()), env: {} });
  resources = new KubeResources(client);
  for (const [name, mode] of [
    ['sluice-wait', 'WaitForFirstConsumer'],
    ['sluice-now', 'Immediate'],
  ] as const)
    await resources.create({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name },
      provisioner: PROVISIONER,
      volumeBindingMode: mode,
      reclaimPolicy: 'Retain',
    });
  return resources;
}

function provisioner(
  storageClass: string,
  identity: string,
  leaseDurationMs = 15_000,
  releaseWaitMs?: number,
) {
  return new VolumeProvisioner({
    resources: resources!,
    log: silentLogger,
    provisionerName: PROVISIONER,
    storageClass,
    namespace: NS,
    identity,
    resyncMs: 200,
    leaseDurationMs,
    ...(releaseWaitMs === undefined ? {} : { releaseWaitMs }),
  });
}

/** The node agent of the test's node, keeping `spares` under `parent`. */
function nodeAgent(
  storageClass: string,
  parent: string,
  more: { spares?: number; diskThreshold?: number } = {},
): NodeAgent {
  return new NodeAgent({
    resources: resources!,
    log: silentLogger,
    nodeName: cluster().nodeName ?? '',
    provisionerName: PROVISIONER,
    storageClass,
    volumeParentDir: parent,
    spares: 3,
    ...more,
  });
}

/**
 * Runs the provisioner and a node agent keeping spares under `parent` in the background, for
 * the test's duration; stopping them deletes the spares left, so the next test's claims get
 * volumes of its own directory.
 */
function running(p: VolumeProvisioner, agent: NodeAgent): { stop: () => Promise<void> } {
  const controller = new AbortController();
  const done = removeSpares().then(() =>
    Promise.all([p.run(controller.signal), agent.keepSpares(controller.signal)]),
  );
  return {
    stop: async () => {
      controller.abort();
      await done;
      await removeSpares();
    },
  };
}

/** This provisioner's volumes: other files on a shared cluster have provisioners of their own. */
const OURS = `${PROVISIONER_LABEL}=${labelValue(PROVISIONER)}`;

/** Deletes the spares left by a test, so the next test's claims get volumes of its own directory. */
async function removeSpares(): Promise<void> {
  const r = await kube();
  for (const pv of await r.list({
    kind: 'PersistentVolume',
    labelSelector: `${SPARE_LABEL},${OURS}`,
  }))
    await r.delete({ kind: 'PersistentVolume', name: pv.metadata.name });
}

/**
 * Waits until the volumes deleted are gone: a deleted volume stays until the controller-manager
 * drops its protection finalizer, and the node agent keeps the directory of a volume it lists.
 */
async function deletionsDone(): Promise<void> {
  const r = await kube();
  const terminating = await eventually(
    async () =>
      (await r.list({ kind: 'PersistentVolume', labelSelector: OURS }))
        .filter((pv) => pv.metadata.deletionTimestamp !== undefined)
        .map((pv) => pv.metadata.name),
    (names) => names.length === 0,
    { timeoutMs: 60_000 },
  );
  assert.deepEqual(terminating, [], 'the deleted volumes are gone');
}

const tempParent = () => mkdtempSync(join(tmpdir(), 'sluice-volumes-'));

function claim(name: string, storageClass: string, labels: Record<string, string>): KubeResource {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: NS,
      labels,
      annotations: {
        [REUSE_ANNOTATIONS.selector]: 'app,pipeline',
        [REUSE_ANNOTATIONS.sortOrder]: 'branch',
      },
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName: storageClass,
      resources: { requests: { storage: '1Gi' } },
    },
  };
}

function pod(name: string, claimName: string, script: string): KubeResource {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: {
      restartPolicy: 'Never',
      containers: [
        {
          name: 'main',
          image: CLUSTER_IMAGES.busybox,
          imagePullPolicy: 'Never',
          command: ['sh', '-c', script],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
    },
  };
}

async function read(kind: string, name: string): Promise<KubeResource | undefined> {
  return (await kube()).read({ kind, name, namespace: NS });
}

function phaseOf(object: KubeResource | undefined): string | undefined {
  return (object?.['status'] as { phase?: string } | undefined)?.phase;
}

/** The pod's final phase, Succeeded or Failed. */
async function podPhase(name: string): Promise<string | undefined> {
  const last = await eventually(
    () => read('Pod', name),
    (p) => ['Succeeded', 'Failed'].includes(phaseOf(p) ?? ''),
    { timeoutMs: 120_000 },
  );
  return phaseOf(last);
}

/** The volume the claim is bound to, once the controller-manager has bound it. */
async function boundVolume(name: string): Promise<string> {
  const pvc = await eventually(
    () => read('PersistentVolumeClaim', name),
    (c) => phaseOf(c) === 'Bound',
    { timeoutMs: 60_000 },
  );
  assert.equal(phaseOf(pvc), 'Bound', `claim ${name}: ${JSON.stringify(pvc?.['status'])}`);
  return String((pvc?.['spec'] as { volumeName: string }).volumeName);
}

/** A `local` volume in its directory under `parent`, pinned to the test's node. */
function assertLocalVolume(pv: KubeResource | undefined, parent: string): void {
  const spec = pv?.['spec'] as
    | {
        local?: { path?: string };
        hostPath?: unknown;
        nodeAffinity?: {
          required?: {
            nodeSelectorTerms?: Array<{
              matchExpressions?: Array<{ key: string; operator: string; values: string[] }>;
            }>;
          };
        };
      }
    | undefined;
  assert.equal(spec?.local?.path, join(parent, pv?.metadata.name ?? ''), JSON.stringify(spec));
  assert.equal(spec?.hostPath, undefined, 'not a hostPath volume');
  const terms = spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  assert.deepEqual(terms[0]?.matchExpressions, [
    { key: 'kubernetes.io/hostname', operator: 'In', values: [cluster().nodeName] },
  ]);
}

async function remove(kind: string, name: string): Promise<void> {
  const r = await kube();
  await r.delete({ kind, name, namespace: NS });
  const left = await eventually(
    () => r.read({ kind, name, namespace: NS }),
    (o) => o === undefined,
    { timeoutMs: 120_000 },
  );
  assert.equal(left, undefined, `${kind} ${name} is still there`);
}

test('a second build of a pipeline mounts the volume the first one wrote; another pipeline gets a new one', async () => {
  const r = await kube();
  const parent = tempParent();
  const p = running(provisioner('sluice-wait', 'only'), nodeAgent('sluice-wait', parent));
  try {
    const labels = { app: 'dind', pipeline: 'p1', branch: 'main' };
    await r.create(claim('first', 'sluice-wait', labels));
    await r.create(pod('first', 'first', 'echo warm > /data/marker'));
    assert.equal(await podPhase('first'), 'Succeeded');
    const volume = await boundVolume('first');
    assertLocalVolume(await r.read({ kind: 'PersistentVolume', name: volume }), parent);
    assert.ok(existsSync(join(parent, volume, 'marker')), 'the pod wrote into the directory');
    await remove('Pod', 'first');
    await remove('PersistentVolumeClaim', 'first');

    await r.create(claim('second', 'sluice-wait', { ...labels, branch: 'dev' }));
    await r.create(pod('second', 'second', 'test "$(cat /data/marker)" = warm'));
    assert.equal(await podPhase('second'), 'Succeeded', "the second pod read the first one's file");
    assert.equal(await boundVolume('second'), volume);
    const pv = await r.read({ kind: 'PersistentVolume', name: volume });
    assert.equal(pv?.metadata.annotations?.[VOLUME_ANNOTATIONS.mountCount], '2');
    assert.equal(
      pv?.metadata.labels?.['branch'],
      'dev',
      "the volume carries its last user's labels",
    );

    await r.create(claim('other', 'sluice-wait', { ...labels, pipeline: 'p2' }));
    await r.create(pod('other', 'other', 'test ! -e /data/marker'));
    assert.equal(await podPhase('other'), 'Succeeded', 'another pipeline starts cold');
    const other = await boundVolume('other');
    assert.notEqual(other, volume);
    assertLocalVolume(await r.read({ kind: 'PersistentVolume', name: other }), parent);
    for (const name of ['second', 'other']) {
      await remove('Pod', name);
      await remove('PersistentVolumeClaim', name);
    }
  } finally {
    await p.stop();
  }
});

/** A finalizer of the test's that holds a deleted claim, as a stopping dind pod would. */
const HOLD = 'sluice.io/test-hold';

async function holdClaim(name: string, held: boolean): Promise<void> {
  await (
    await kube()
  ).patch(
    { kind: 'PersistentVolumeClaim', namespace: NS, name },
    { metadata: { finalizers: held ? [HOLD] : null } },
  );
}

test('back to back: a claim waits for the volume whose claim is being deleted and gets it; past the wait, a new one', async () => {
  const r = await kube();
  const labels = { app: 'dind', pipeline: 'b2b' };
  const p = running(
    provisioner('sluice-wait', 'b2b', 15_000, 6_000),
    nodeAgent('sluice-wait', tempParent()),
  );
  try {
    await r.create(claim('b2b-1', 'sluice-wait', labels));
    await r.create(pod('b2b-1', 'b2b-1', 'echo warm > /data/marker'));
    assert.equal(await podPhase('b2b-1'), 'Succeeded');
    const volume = await boundVolume('b2b-1');
    await remove('Pod', 'b2b-1');
    // Deleted, but held: its build is over, its volume not released yet.
    await holdClaim('b2b-1', true);
    await r.delete({ kind: 'PersistentVolumeClaim', namespace: NS, name: 'b2b-1' });
    await r.create(claim('b2b-2', 'sluice-wait', labels));
    await r.create(pod('b2b-2', 'b2b-2', 'test "$(cat /data/marker)" = warm'));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const waiting = await read('PersistentVolumeClaim', 'b2b-2');
    assert.equal(phaseOf(waiting), 'Pending', 'it waits rather than taking a spare');
    await holdClaim('b2b-1', false);
    assert.equal(await podPhase('b2b-2'), 'Succeeded', "the second pod read the first one's file");
    assert.equal(await boundVolume('b2b-2'), volume);
    const hit = await read('PersistentVolumeClaim', 'b2b-2');
    assert.equal(hit?.metadata.annotations?.[CACHE_ANNOTATIONS.outcome], 'hit');

    // Held past the wait: the next claim starts cold, and its miss names the volume it waited for.
    await remove('Pod', 'b2b-2');
    await holdClaim('b2b-2', true);
    await r.delete({ kind: 'PersistentVolumeClaim', namespace: NS, name: 'b2b-2' });
    await r.create(claim('b2b-3', 'sluice-wait', labels));
    await r.create(pod('b2b-3', 'b2b-3', 'test ! -e /data/marker'));
    assert.equal(await podPhase('b2b-3'), 'Succeeded', 'a new volume');
    assert.notEqual(await boundVolume('b2b-3'), volume);
    const miss = await read('PersistentVolumeClaim', 'b2b-3');
    assert.equal(miss?.metadata.annotations?.[CACHE_ANNOTATIONS.outcome], 'miss');
    assert.match(
      miss?.metadata.annotations?.[CACHE_ANNOTATIONS.reason] ?? '',
      new RegExp(
        `^new: volume ${volume} is being released by claim b2b-2, whose build is over, and was not free \\d+ s after this claim came$`,
      ),
    );
    await holdClaim('b2b-2', false);
    await remove('Pod', 'b2b-3');
    await remove('PersistentVolumeClaim', 'b2b-3');
  } finally {
    await p.stop();
  }
});

test('20 claims at once, 5 released volumes among them: every claim bound, no volume shared', async () => {
  const r = await kube();
  const labels = { app: 'dind', pipeline: 'burst' };
  const p = running(provisioner('sluice-now', 'burst'), nodeAgent('sluice-now', tempParent()));
  try {
    const warm = Array.from({ length: 5 }, (_, i) => `warm-${i}`);
    for (const name of warm) await r.create(claim(name, 'sluice-now', labels));
    const warmVolumes = await Promise.all(warm.map(boundVolume));
    for (const name of warm) await remove('PersistentVolumeClaim', name);
    const names = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
    await Promise.all(names.map((name) => r.create(claim(name, 'sluice-now', labels))));
    const volumes = await Promise.all(names.map(boundVolume));
    assert.equal(new Set(volumes).size, 20, `distinct volumes: ${volumes.join(' ')}`);
    assert.deepEqual(
      warmVolumes.filter((v) => volumes.includes(v)).sort(),
      [...warmVolumes].sort(),
      'the released volumes were reused',
    );
    for (const name of names) await remove('PersistentVolumeClaim', name);
  } finally {
    await p.stop();
  }
});

test('the leader stops mid-work: a standby takes over when its lease runs out, and makes no volume twice', async () => {
  const r = await kube();
  const labels = { app: 'dind', pipeline: 'leader' };
  const leader = provisioner('sluice-now', 'leader-a', 3000);
  const standby = provisioner('sluice-now', 'leader-b', 3000);
  const parent = tempParent();
  const agent = nodeAgent('sluice-now', parent, { spares: 5 });
  await removeSpares();
  assert.equal((await agent.refill()).length, 5, 'five spares ready');
  const first = Array.from({ length: 5 }, (_, i) => `lead-${i}`);
  for (const name of first) await r.create(claim(name, 'sluice-now', labels));
  const report = await leader.pass();
  assert.equal(report.leader, true);
  assert.equal(report.created.length, 5);
  // The leader dies here (no more passes, its lease left to run out); more claims arrive.
  assert.equal((await standby.pass()).leader, false, 'the standby waits while the lease is held');
  const later = Array.from({ length: 5 }, (_, i) => `late-${i}`);
  for (const name of later) await r.create(claim(name, 'sluice-now', labels));
  const p = running(standby, agent);
  try {
    const volumes = await Promise.all([...first, ...later].map(boundVolume));
    assert.equal(new Set(volumes).size, 10);
    const mine = (await r.list({ kind: 'PersistentVolume' })).filter(
      (pv) => pv.metadata.labels?.['pipeline'] === 'leader',
    );
    assert.equal(mine.length, 10, 'one volume per claim, none made twice');
    for (const pv of mine) assertLocalVolume(pv, parent);
    // Every directory is a volume's: the claims' and the spares being kept.
    const names = new Set((await r.list({ kind: 'PersistentVolume' })).map((v) => v.metadata.name));
    const leaked = readdirSync(parent).filter((dir) => !names.has(dir));
    assert.deepEqual(leaked, [], 'no directory without its volume');
    for (const name of [...first, ...later]) await remove('PersistentVolumeClaim', name);
  } finally {
    await p.stop();
  }
});

test('the node agent on a full small filesystem retires the least recently used free volume, one per pass, never one in use', async () => {
  const r = await kube();
  const parent = mkdtempSync(join(tmpdir(), 'sluice-small-volumes-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', parent]);
  const p = running(provisioner('sluice-now', 'small'), nodeAgent('sluice-now', parent));
  const FILL = 'dd if=/dev/zero of=/data/fill bs=1M count=7 && sync';
  try {
    // Three volumes of 7 MiB, each used by one pod and released, in this order.
    const released: string[] = [];
    for (const i of [0, 1, 2]) {
      await r.create(claim(`fill-${i}`, 'sluice-now', { app: 'dind', pipeline: `small-${i}` }));
      await r.create(pod(`fill-${i}`, `fill-${i}`, FILL));
      assert.equal(await podPhase(`fill-${i}`), 'Succeeded');
      released.push(await boundVolume(`fill-${i}`));
      await remove('Pod', `fill-${i}`);
      await remove('PersistentVolumeClaim', `fill-${i}`);
      // Released (its last use stamped) before the next one, so the order is theirs.
      await eventually(
        () => r.read({ kind: 'PersistentVolume', name: released[i] ?? '' }),
        (pv) => pv?.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy] === undefined,
        { timeoutMs: 30_000 },
      );
    }
    // A fourth in use: its pod wrote 7 MiB and runs on.
    await r.create(claim('busy', 'sluice-now', { app: 'dind', pipeline: 'small-busy' }));
    await r.create(pod('busy', 'busy', `${FILL} && touch /data/done && sleep 600`));
    const busy = await boundVolume('busy');
    const done = await eventually(
      () => existsSync(join(parent, busy, 'done')),
      (found) => found,
      { timeoutMs: 120_000 },
    );
    assert.ok(done, 'the busy pod wrote its file');

    const agent = (diskThreshold: number) => nodeAgent('sluice-now', parent, { diskThreshold });
    const first = await agent(0.8).pass();
    assert.ok(first.usage.space > 0.8, `28 MiB of 32 in use: ${first.usage.space}`);
    assert.equal(first.retired, released[0], 'the least recently used goes first');
    assert.equal(existsSync(join(parent, released[0] ?? '')), false, 'with its directory');
    const second = await agent(0.8).pass();
    assert.ok(second.usage.space < 0.8, `below the threshold now: ${second.usage.space}`);
    assert.equal(second.retired, undefined, 'only as many as needed');

    // However full, a volume in use stays.
    const greedy = agent(0.01);
    assert.equal((await greedy.pass()).retired, released[1]);
    assert.equal((await greedy.pass()).retired, released[2]);
    assert.equal((await greedy.pass()).retired, undefined);
    assert.ok((await r.read({ kind: 'PersistentVolume', name: busy })) !== undefined);
    assert.ok(existsSync(join(parent, busy, 'done')), 'the busy volume and its data are there');
    for (const name of released)
      assert.equal(await r.read({ kind: 'PersistentVolume', name }), undefined, name);
  } finally {
    await r.delete({ kind: 'Pod', name: 'busy', namespace: NS }).catch(() => undefined);
    await remove('PersistentVolumeClaim', 'busy').catch(() => undefined);
    await p.stop();
    execFileSync('umount', ['-l', parent]);
  }
});

test('the reuse scopes on the cluster: account, project, pipeline, pipeline+branch, pipeline+trigger', async () => {
  const r = await kube();
  const parent = tempParent();
  const run = running(provisioner('sluice-now', 'scopes'), nodeAgent('sluice-now', parent));
  const made = new Set<string>();
  // Each scope's selector; a change of labels it keeps the volume through; one that leaves it.
  const scopes: Array<[string, Record<string, string>, Record<string, string>]> = [
    ['app,account', { project: 'pr2', pipeline: 'p2' }, { account: 'other' }],
    ['app,account,project', { pipeline: 'p2', branch: 'dev' }, { project: 'pr2' }],
    ['app,account,pipeline', { branch: 'dev', trigger: 't2' }, { pipeline: 'p2' }],
    ['app,account,pipeline,branch', { trigger: 't2' }, { branch: 'dev' }],
    ['app,account,pipeline,trigger', { branch: 'dev' }, { trigger: 't2' }],
  ];
  /** Binds a claim of `labels` under `selector`, releases it, and gives its volume. */
  const use = async (name: string, labels: Record<string, string>, selector: string) => {
    const c = claim(name, 'sluice-now', labels);
    c.metadata.annotations = { [REUSE_ANNOTATIONS.selector]: selector };
    await r.create(c);
    const volume = await boundVolume(name);
    made.add(volume);
    assertLocalVolume(await r.read({ kind: 'PersistentVolume', name: volume }), parent);
    await remove('PersistentVolumeClaim', name);
    await eventually(
      () => r.read({ kind: 'PersistentVolume', name: volume }),
      (pv) => pv?.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy] === undefined,
      { timeoutMs: 30_000 },
    );
    return volume;
  };
  try {
    for (const [i, [selector, within, outside]] of scopes.entries()) {
      // The account is the case's own, so no case reuses another's volume.
      const labels = {
        app: 'dind',
        account: `scope-${i}`,
        project: 'pr1',
        pipeline: 'p1',
        branch: 'main',
        trigger: 't1',
      };
      const first = await use(`scope-${i}-first`, labels, selector);
      const kept = await use(`scope-${i}-kept`, { ...labels, ...within }, selector);
      assert.equal(kept, first, `${selector}: ${JSON.stringify(within)} keeps the volume`);
      const left = await use(`scope-${i}-left`, { ...labels, ...outside }, selector);
      assert.notEqual(left, first, `${selector}: ${JSON.stringify(outside)} gets another`);
    }
  } finally {
    await run.stop();
    for (const name of made) await r.delete({ kind: 'PersistentVolume', name });
  }
  // The node agent removes the directories of the deleted volumes: nothing is left behind.
  await deletionsDone();
  await nodeAgent('sluice-now', parent).pass();
  assert.deepEqual(readdirSync(parent), []);
});

test('a volume unused longer than its retention is deleted by the leader; the node agent then removes its directory', async () => {
  const r = await kube();
  const parent = mkdtempSync(join(tmpdir(), 'sluice-retention-'));
  let offsetMs = 0;
  const p = new VolumeProvisioner({
    resources: r,
    log: silentLogger,
    provisionerName: PROVISIONER,
    storageClass: 'sluice-now',
    namespace: NS,
    identity: 'retention',
    retentionDays: 4,
    clock: () => Date.now() + offsetMs,
  });
  const run = running(p, nodeAgent('sluice-now', parent));
  let volume = '';
  try {
    await r.create(claim('kept', 'sluice-now', { app: 'dind', pipeline: 'retention' }));
    await r.create(pod('kept', 'kept', 'echo cache > /data/file'));
    assert.equal(await podPhase('kept'), 'Succeeded');
    volume = await boundVolume('kept');
    await remove('Pod', 'kept');
    await remove('PersistentVolumeClaim', 'kept');
    const released = await eventually(
      () => r.read({ kind: 'PersistentVolume', name: volume }),
      (pv) => pv?.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy] === undefined,
      { timeoutMs: 30_000 },
    );
    assert.ok(released?.metadata.annotations?.[VOLUME_ANNOTATIONS.lastUsed]);
    assert.ok(existsSync(join(parent, volume, 'file')));
  } finally {
    await run.stop();
  }
  // Three days later it is kept; five days later it is gone.
  // (The earlier tests' released volumes of this provisioner expire along with it.)
  offsetMs = 3 * 86_400_000;
  assert.ok(!(await p.pass()).expired.includes(volume));
  offsetMs = 5 * 86_400_000;
  assert.ok((await p.pass()).expired.includes(volume));
  assert.equal(await r.read({ kind: 'PersistentVolume', name: volume }), undefined);
  await deletionsDone();
  const { removed } = await nodeAgent('sluice-now', parent).pass();
  assert.ok(removed.includes(volume), removed.join(' '));
  assert.equal(existsSync(join(parent, volume)), false);
  // The spares' directories went with their volumes: nothing is left behind.
  assert.deepEqual(readdirSync(parent), []);
});
