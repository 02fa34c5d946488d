/**
 * The volume provisioner on a real single-node cluster: the controller-manager binds the claims
 * it answers, the kubelet mounts the volumes. Reuse by labels, back-to-back claims, a burst of
 * claims, a leader that stops mid-work, and each reuse scope. The node agent's own work (full
 * disks, deleted volumes) is in node-agent.kube.test.ts.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_ANNOTATIONS, REUSE_ANNOTATIONS } from '@sluice/runtime-spec';
import { CLUSTER_IMAGES, useKubernetes } from '@sluice/testkit';
import { VOLUME_ANNOTATIONS } from './volume-objects.js';
import { volumeTestKit } from './volume-cluster.test-support.js';

// One cluster with a node: the controller-manager binds the claims, the kubelet mounts them.
const cluster = useKubernetes({ nodes: true, images: [CLUSTER_IMAGES.busybox] });
const {
  NS,
  WAIT,
  NOW,
  kube,
  provisioner,
  nodeAgent,
  running,
  removeSpares,
  deletionsDone,
  tempParent,
  claim,
  pod,
  read,
  phaseOf,
  podPhase,
  boundVolume,
  released,
  assertLocalVolume,
  remove,
} = volumeTestKit(cluster, {
  namespace: 'volumes',
  provisioner: 'sluice.io/volumes-test',
  classPrefix: 'sluice',
});

test('a second build of a pipeline mounts the volume the first one wrote; another pipeline gets a new one', async () => {
  const r = await kube();
  const parent = tempParent();
  const p = running(provisioner(WAIT, 'only'), nodeAgent(WAIT, parent));
  try {
    const labels = { app: 'dind', pipeline: 'p1', branch: 'main' };
    await r.create(claim('first', WAIT, labels));
    await r.create(pod('first', 'first', 'echo warm > /data/marker'));
    assert.equal(await podPhase('first'), 'Succeeded');
    const volume = await boundVolume('first');
    assertLocalVolume(await r.read({ kind: 'PersistentVolume', name: volume }), parent);
    assert.ok(existsSync(join(parent, volume, 'marker')), 'the pod wrote into the directory');
    await remove('Pod', 'first');
    await remove('PersistentVolumeClaim', 'first');

    await r.create(claim('second', WAIT, { ...labels, branch: 'dev' }));
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

    await r.create(claim('other', WAIT, { ...labels, pipeline: 'p2' }));
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
  const p = running(provisioner(WAIT, 'b2b', 15_000, 6_000), nodeAgent(WAIT, tempParent()));
  try {
    await r.create(claim('b2b-1', WAIT, labels));
    await r.create(pod('b2b-1', 'b2b-1', 'echo warm > /data/marker'));
    assert.equal(await podPhase('b2b-1'), 'Succeeded');
    const volume = await boundVolume('b2b-1');
    await remove('Pod', 'b2b-1');
    // Deleted, but held: its build is over, its volume not released yet.
    await holdClaim('b2b-1', true);
    await r.delete({ kind: 'PersistentVolumeClaim', namespace: NS, name: 'b2b-1' });
    await r.create(claim('b2b-2', WAIT, labels));
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
    await r.create(claim('b2b-3', WAIT, labels));
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
  const p = running(provisioner(NOW, 'burst'), nodeAgent(NOW, tempParent()));
  try {
    const warm = Array.from({ length: 5 }, (_, i) => `warm-${i}`);
    for (const name of warm) await r.create(claim(name, NOW, labels));
    const warmVolumes = await Promise.all(warm.map(boundVolume));
    for (const name of warm) await remove('PersistentVolumeClaim', name);
    const names = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
    await Promise.all(names.map((name) => r.create(claim(name, NOW, labels))));
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
  const leader = provisioner(NOW, 'leader-a', 3000);
  const standby = provisioner(NOW, 'leader-b', 3000);
  const parent = tempParent();
  const agent = nodeAgent(NOW, parent, { spares: 5 });
  await removeSpares();
  assert.equal((await agent.refill()).length, 5, 'five spares ready');
  const first = Array.from({ length: 5 }, (_, i) => `lead-${i}`);
  for (const name of first) await r.create(claim(name, NOW, labels));
  const report = await leader.pass();
  assert.equal(report.leader, true);
  assert.equal(report.created.length, 5);
  // The leader dies here (no more passes, its lease left to run out); more claims arrive.
  assert.equal((await standby.pass()).leader, false, 'the standby waits while the lease is held');
  const later = Array.from({ length: 5 }, (_, i) => `late-${i}`);
  for (const name of later) await r.create(claim(name, NOW, labels));
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

test('the reuse scopes on the cluster: account, project, pipeline, pipeline+branch, pipeline+trigger', async () => {
  const r = await kube();
  const parent = tempParent();
  const run = running(provisioner(NOW, 'scopes'), nodeAgent(NOW, parent));
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
    const c = claim(name, NOW, labels);
    c.metadata.annotations = { [REUSE_ANNOTATIONS.selector]: selector };
    await r.create(c);
    const volume = await boundVolume(name);
    made.add(volume);
    assertLocalVolume(await r.read({ kind: 'PersistentVolume', name: volume }), parent);
    await remove('PersistentVolumeClaim', name);
    await released(volume);
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
  await deletionsDone(nodeAgent(NOW, parent));
  assert.deepEqual(readdirSync(parent), []);
});
