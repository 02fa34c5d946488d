/**
 * The volume provisioner's node agent on a real single-node cluster: on a full filesystem it
 * retires the least recently used free volume; a volume deleted (expired by the leader's
 * retention, by `runner delete` or by hand) waits, held by its finalizer, until the agent has
 * removed its directory; a volume without the finalizer is adopted; and once its StorageClass is
 * gone, the agent makes no more spares.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeResource } from '@sluice/kube';
import { silentLogger } from '@sluice/log';
import { CLUSTER_IMAGES, eventually, useKubernetes } from '@sluice/testkit';
import { VolumeProvisioner } from './volume-provisioner.js';
import { VOLUME_ANNOTATIONS, VOLUME_FINALIZER, withoutFinalizer } from './volume-objects.js';
import { volumeTestKit } from './volume-cluster.test-support.js';

const cluster = useKubernetes({ nodes: true, images: [CLUSTER_IMAGES.busybox] });
const PROVISIONER = 'sluice.io/node-agent-test';
/** Whether the volume's directory is under `parent`. */
function inDir(pv: KubeResource, parent: string): boolean {
  const path = (pv['spec'] as { local?: { path?: string } }).local?.path ?? '';
  return path.startsWith(`${parent}/`);
}

const {
  NS,
  NOW,
  OURS,
  kube,
  provisioner,
  nodeAgent,
  running,
  deletionsDone,
  tempParent,
  claim,
  pod,
  podPhase,
  boundVolume,
  released: releasedVolume,
  remove,
} = volumeTestKit(cluster, {
  namespace: 'volume-agent',
  provisioner: PROVISIONER,
  classPrefix: 'sluice-agent',
});

test('the node agent on a full small filesystem retires the least recently used free volume, one per pass, never one in use', async () => {
  const r = await kube();
  const parent = mkdtempSync(join(tmpdir(), 'sluice-small-volumes-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', parent]);
  const p = running(provisioner(NOW, 'small'), nodeAgent(NOW, parent));
  const FILL = 'dd if=/dev/zero of=/data/fill bs=1M count=7 && sync';
  try {
    // Three volumes of 7 MiB, each used by one pod and released, in this order.
    const released: string[] = [];
    for (const i of [0, 1, 2]) {
      await r.create(claim(`fill-${i}`, NOW, { app: 'dind', pipeline: `small-${i}` }));
      await r.create(pod(`fill-${i}`, `fill-${i}`, FILL));
      assert.equal(await podPhase(`fill-${i}`), 'Succeeded');
      released.push(await boundVolume(`fill-${i}`));
      await remove('Pod', `fill-${i}`);
      await remove('PersistentVolumeClaim', `fill-${i}`);
      // Released (its last use stamped) before the next one, so the order is theirs.
      await releasedVolume(released[i] ?? '');
    }
    // A fourth in use: its pod wrote 7 MiB and runs on.
    await r.create(claim('busy', NOW, { app: 'dind', pipeline: 'small-busy' }));
    await r.create(pod('busy', 'busy', `${FILL} && touch /data/done && sleep 600`));
    const busy = await boundVolume('busy');
    const done = await eventually(
      () => existsSync(join(parent, busy, 'done')),
      (found) => found,
      { timeoutMs: 120_000 },
    );
    assert.ok(done, 'the busy pod wrote its file');

    const agent = (diskThreshold: number) => nodeAgent(NOW, parent, { diskThreshold });
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
    // Its volumes go with the filesystem: each waits for an agent of this directory to finish it.
    for (const pv of await r.list({ kind: 'PersistentVolume', labelSelector: OURS }))
      if (inDir(pv, parent)) await r.delete({ kind: 'PersistentVolume', name: pv.metadata.name });
    await deletionsDone(nodeAgent(NOW, parent));
    execFileSync('umount', ['-l', parent]);
  }
});

test('a volume unused longer than its retention is deleted by the leader; the node agent then removes its directory', async () => {
  const r = await kube();
  const parent = mkdtempSync(join(tmpdir(), 'sluice-retention-'));
  let offsetMs = 0;
  const p = new VolumeProvisioner({
    resources: r,
    log: silentLogger,
    provisionerName: PROVISIONER,
    storageClass: NOW,
    namespace: NS,
    identity: 'retention',
    retentionDays: 4,
    clock: () => Date.now() + offsetMs,
  });
  const run = running(p, nodeAgent(NOW, parent));
  let volume: string;
  try {
    await r.create(claim('kept', NOW, { app: 'dind', pipeline: 'retention' }));
    await r.create(pod('kept', 'kept', 'echo cache > /data/file'));
    assert.equal(await podPhase('kept'), 'Succeeded');
    volume = await boundVolume('kept');
    await remove('Pod', 'kept');
    await remove('PersistentVolumeClaim', 'kept');
    const released = await releasedVolume(volume);
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
  // Deleted, and held by its finalizer with its data until the node agent has removed it.
  const deleting = await r.read({ kind: 'PersistentVolume', name: volume });
  assert.ok(deleting?.metadata.deletionTimestamp, 'the volume is being deleted');
  assert.ok(deleting.metadata.finalizers?.includes(VOLUME_FINALIZER));
  assert.ok(existsSync(join(parent, volume, 'file')), 'its directory waits for the node agent');
  const agent = nodeAgent(NOW, parent);
  const { removed } = await agent.pass();
  assert.ok(removed.includes(volume), removed.join(' '));
  assert.equal(existsSync(join(parent, volume)), false);
  await deletionsDone(agent);
  assert.equal(await r.read({ kind: 'PersistentVolume', name: volume }), undefined);
  // The spares' directories went with their volumes: nothing is left behind.
  assert.deepEqual(readdirSync(parent), []);
});

test('a volume deleted by hand stays until the node agent removed its directory; one without the finalizer is adopted; no spares without the class', async () => {
  const r = await kube();
  const parent = tempParent();
  const agent = nodeAgent(NOW, parent, { spares: 1 });
  const [spare] = await agent.refill();
  assert.ok(spare, 'a spare was made');
  const ref = { kind: 'PersistentVolume', name: spare };
  const finalizers = async () => (await r.read(ref))?.metadata.finalizers ?? [];
  assert.ok((await finalizers()).includes(VOLUME_FINALIZER));
  assert.ok(existsSync(join(parent, spare)));

  // Kept without it (`runner delete --keep-volumes`): the next pass puts it back. Unguarded, as
  // `kubectl patch` is: the PV controller's status update may have moved the version meanwhile.
  const { finalizers: kept } = withoutFinalizer((await r.read(ref))!)['metadata'] as {
    finalizers: string[];
  };
  await r.patch(ref, { metadata: { finalizers: kept } });
  assert.ok(!(await finalizers()).includes(VOLUME_FINALIZER));
  // A pass whose guarded write lost a race with the PV controller's status update tries again
  // at the next pass: one of the next passes adopts it.
  const adopted = await eventually(
    async () => {
      await agent.pass();
      return finalizers();
    },
    (list) => list.includes(VOLUME_FINALIZER),
    { timeoutMs: 15_000 },
  );
  assert.ok(adopted.includes(VOLUME_FINALIZER), 'adopted');

  await r.delete(ref);
  const deleting = await r.read(ref);
  assert.ok(deleting?.metadata.deletionTimestamp, 'held by the finalizer');
  assert.ok(existsSync(join(parent, spare)), 'its directory is there until the agent passes');
  assert.deepEqual((await agent.pass()).removed, [spare]);
  assert.equal(existsSync(join(parent, spare)), false);
  await deletionsDone(agent);
  assert.equal(await r.read(ref), undefined, 'then the volume goes');

  const classless = nodeAgent('sluice-agent-no-such-class', parent, { spares: 1 });
  assert.deepEqual(await classless.refill(), [], 'no spare for a class that does not exist');
  assert.deepEqual(readdirSync(parent), []);
});
