/**
 * Warm caches on a real single-node Kubernetes: the volume provisioner, installed in the cluster
 * as the runtime chart and `runner init --warm-volumes` install it (two replicas from the engine
 * image, its StorageClass, its rights, the volume agent keeping spare `local` volumes), serves
 * the runtime's claims, so the second build of a pipeline gets the volume its first build's dind
 * wrote (its image layers are there: the build step's log says "Using cache"), and a build of
 * another pipeline gets a volume of its own and starts cold. `runner delete` of the install
 * keeps its volumes with `--keep-volumes` (the next install adopts them) and otherwise removes
 * each volume and its directory on the node.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeClient, KubeResources } from '@sluice/kube';
import type { KubeResource } from '@sluice/kube';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import { VOLUME_ANNOTATIONS, VOLUME_FINALIZER } from '@sluice/provisioner';
import type { VolumeSummary } from '@sluice/provisioner';
import { labelValue, renderRuntimeInstall, VOLUME_LABELS } from '@sluice/runtime-spec';
import { CLUSTER_IMAGES, makeTempDir, useKubernetes } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import {
  ADMIN_TOKEN,
  startKubeAgent,
  startBuildPlane,
  waitForProbe,
  buildObjects,
  objectCount,
} from './cluster-fixture.js';
import type { AgentProcess, ControlPlane } from './cluster-fixture.js';
import { runSluice } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';

const cluster = useKubernetes({
  nodes: true,
  images: [CLUSTER_IMAGES.engine, CLUSTER_IMAGES.dind],
});
const NS = 'sluice-warm';
const RUNTIME = 'warm/ci';
const BUILD_TIMEOUT_MS = 240_000;

/** The same Dockerfile in two pipelines: a cache hit can only come from the volume. */
const pipeline = (tag: string) =>
  [
    'version: "1.0"',
    'steps:',
    '  image:',
    '    type: build',
    '    image_name: sluice/warm-cache',
    `    tag: ${tag}`,
    '    dockerfile:',
    '      content: "FROM sluice/busybox:1\\nRUN echo layer made once > /layer"',
    '',
  ].join('\n');

let temp: TempDir;
let plane: ControlPlane;
let admin: SluiceClient;
let agent: AgentProcess;
let pipelineIds: Record<string, string>;
let resources: KubeResources;
const STORAGE_CLASS = 'sluice-warm';

before(async () => {
  await cluster.ready();
  temp = await makeTempDir('sluice-warm-cache-');
  ({ plane } = await startBuildPlane(cluster(), {
    dir: temp.path,
    namespace: NS,
    runtime: RUNTIME,
    storageClassName: STORAGE_CLASS,
  }));
  admin = plane.admin;
  pipelineIds = await createPipelines(admin, 'warm', {
    first: pipeline('a'),
    other: pipeline('b'),
  });
  resources = new KubeResources(
    KubeClient.create({ source: { type: 'kubeconfig', path: cluster().kubeconfigPath }, env: {} }),
  );
  await applyProvisioner();
  agent = await startKubeAgent(plane, cluster(), {
    name: 'warm-agent',
    runtime: RUNTIME,
    dir: temp.path,
  });
});

/** The provisioner's objects of the runtime install, applied as `runner init` applies them. */
async function applyProvisioner(): Promise<void> {
  const install = renderRuntimeInstall({
    release: 'warm',
    namespace: NS,
    values: {
      controlPlane: { url: plane.url },
      runtime: { name: RUNTIME },
      agent: { image: { pullPolicy: 'Never' } },
      volumes: {
        enabled: true,
        storageClass: STORAGE_CLASS,
        parentDir: join(temp.path, 'volumes'),
        leaseSeconds: 5,
      },
    },
  }).filter((o) => o.metadata.labels['app.kubernetes.io/name'] === 'sluice-provisioner');
  for (const object of install) await resources.apply(object);
}

after(async () => {
  await agent?.stop();
  await plane?.stop();
  await temp?.cleanup();
});

async function runBuild(
  pipelineId: string,
): Promise<{ status: string; log: string; build: Build }> {
  const build = await admin.call('createBuild', { params: { pipelineId }, body: {} });
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  let state = build;
  while (!FINISHED_STATUSES.includes(state.status)) {
    if (Date.now() > deadline)
      throw new Error(`build ${build.id} did not finish; see ${temp.path}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    state = await admin.call('getBuild', { params: { buildId: build.id } });
  }
  const log = await (await admin.raw('buildLog', { params: { buildId: build.id } })).text();
  return { status: state.status, log, build: state };
}

/** The build once its objects are gone: the agent reported its cache record while bound. */
async function settled(buildId: string): Promise<Build> {
  await waitForProbe(
    `build ${buildId}'s objects deleted`,
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS, buildId)) === 0,
  );
  return admin.call('getBuild', { params: { buildId } });
}

/** The provisioner's volumes last used by the pipeline, with their mount counts. */
async function volumesOf(pipelineId: string): Promise<Array<{ name: string; mounts: string }>> {
  const all = await resources.list({ kind: 'PersistentVolume' });
  return all
    .filter((pv) => pv.metadata.labels?.[VOLUME_LABELS.pipeline] === labelValue(pipelineId))
    .map((pv) => ({
      name: pv.metadata.name,
      mounts: pv.metadata.annotations?.[VOLUME_ANNOTATIONS.mountCount] ?? '',
    }));
}

test("back to back, the second build of a pipeline runs on the first one's volume and its dind has the layers; another pipeline starts cold", async () => {
  const first = pipelineIds['first'] ?? '';
  const cold = await runBuild(first);
  assert.equal(cold.status, 'success', cold.log);
  assert.doesNotMatch(cold.log, /Using cache/, 'the first build is cold');
  // Created the moment the first ended, while the first's volume is still being released (its
  // dind pod stopping): the claim waits for that volume rather than starting cold.
  const warm = await runBuild(first);
  assert.equal(warm.status, 'success', warm.log);
  const coldRecord = (await settled(cold.build.id)).cache;
  const record = (await settled(warm.build.id)).cache;
  assert.match(
    warm.log,
    /Using cache/,
    `the second build's dind found the first one's layers; its cache record: ${JSON.stringify(record)}`,
  );
  const [volume] = await volumesOf(first);
  assert.deepEqual(await volumesOf(first), [{ name: volume?.name, mounts: '2' }]);
  assert.equal(coldRecord?.outcome, 'miss', JSON.stringify(coldRecord));
  assert.equal(coldRecord?.volume, volume?.name);
  assert.match(coldRecord?.reason ?? '', /^new: /);
  // A `local` volume whose directory the node agent made, pinned to the node that holds it.
  const pv = await resources.read({ kind: 'PersistentVolume', name: volume?.name ?? '' });
  const spec = pv?.['spec'] as {
    local?: { path?: string };
    nodeAffinity?: { required?: { nodeSelectorTerms?: Array<{ matchExpressions?: unknown }> } };
  };
  assert.equal(spec.local?.path, join(temp.path, 'volumes', volume?.name ?? ''));
  assert.deepEqual(spec.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions, [
    { key: 'kubernetes.io/hostname', operator: 'In', values: [cluster().nodeName] },
  ]);

  assert.equal(record?.outcome, 'hit', JSON.stringify(record));
  assert.equal(record?.volume, volume?.name);
  assert.equal(record?.mountCount, 2);
  assert.match(record?.reason ?? '', /^reused: the same /);
  assert.ok(
    Date.parse(record?.previousUseAt ?? '') >= Date.parse(record?.volumeCreatedAt ?? ''),
    'the previous use is after the volume was made',
  );

  const other = pipelineIds['other'] ?? '';
  const fresh = await runBuild(other);
  assert.equal(fresh.status, 'success', fresh.log);
  assert.doesNotMatch(fresh.log, /Using cache/, 'another pipeline gets a volume of its own');
  const freshRecord = (await settled(fresh.build.id)).cache;
  const [otherVolume] = await volumesOf(other);
  assert.ok(otherVolume !== undefined && otherVolume.name !== volume?.name);
  assert.equal(freshRecord?.outcome, 'miss', JSON.stringify(freshRecord));

  // `sluice get volumes` reads the same volumes from the cluster with the kubeconfig.
  const listed = await runSluice([
    'get',
    'volumes',
    '--runtime',
    RUNTIME,
    '--kubeconfig',
    cluster().kubeconfigPath,
    '-o',
    'json',
  ]);
  assert.equal(listed.code, 0, listed.stderr);
  const items = (JSON.parse(listed.stdout) as { items: VolumeSummary[] }).items;
  const warmVolume = items.find((v) => v.name === volume?.name);
  assert.equal(warmVolume?.mountCount, 2, listed.stdout);
  assert.equal(warmVolume?.runtime, RUNTIME, 'the runtime by name, not its label hash');
  assert.equal(warmVolume?.status, 'released', 'its builds are over: free for the next');
  assert.equal(warmVolume?.labels[VOLUME_LABELS.pipeline], labelValue(first));
  assert.ok(items.some((v) => v.name === otherVolume.name));
  const table = await runSluice(['get', 'volumes', '--kubeconfig', cluster().kubeconfigPath]);
  assert.match(table.stdout, /NAME\s+RUNTIME\s+STATUS\s+NODE\s+SIZE\s+BUILDS\s+LAST USED\s+AGE/);
  assert.match(
    table.stdout,
    // The name and the runtime whole, as kubectl never cuts a name; other columns may be cut.
    new RegExp(`${volume?.name} +warm/ci +released\\s+\\S+\\s+\\S+\\s+2\\s`),
  );
  const missing = await runSluice([
    'get',
    'volume',
    'nope',
    '--kubeconfig',
    cluster().kubeconfigPath,
  ]);
  assert.equal(missing.code, 66, 'not found');
  assert.match(missing.stderr, /Volume "nope" does not exist/);
});

const POOL_PRIORITY = 'sluice-warm-pool-e2e';
const POOL = 'sluice.io/warm-pool';

/**
 * The pool's pods of the runtime by state, with the build each holds, whether it is ready, and
 * the released volume it was made on (none: a volume no build had let go).
 */
async function poolPods(): Promise<
  {
    name: string;
    state: string;
    build: string;
    ready: boolean;
    volume: string;
    deleting: boolean;
  }[]
> {
  const pods = await resources.list({
    kind: 'Pod',
    namespace: NS,
    labelSelector: `sluice.io/runtime=${labelValue(RUNTIME)},${POOL}`,
  });
  return pods.map((pod) => {
    const status = pod['status'] as { conditions?: { type: string; status: string }[] } | undefined;
    return {
      name: pod.metadata.name,
      state: pod.metadata.labels?.[POOL] ?? '',
      build: pod.metadata.labels?.['sluice.io/build-id'] ?? '',
      ready: (status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      volume: pod.metadata.annotations?.['sluice.io/warm-pool-volume'] ?? '',
      deleting: pod.metadata.deletionTimestamp !== undefined,
    };
  });
}

/**
 * Two pool pods ready, none held, and no other waiting: what a pool of two settles to (while it
 * moves a pod onto a released volume it has three: the one leaving, still ready, and its
 * replacement, still starting), `onReleased` of them on volumes builds let go. The pool moves
 * onto a volume only once the build's claim is deleted, which may come after the build has
 * ended. Their names, and the volumes they were made on.
 */
async function poolRefilled(onReleased: 1 | 2): Promise<{ names: string[]; volumes: string[] }> {
  const ready = await waitForProbe(
    `two warm-pool pods ready, ${String(onReleased)} on released volumes`,
    async () => {
      const waiting = (await poolPods()).filter((p) => p.state === 'waiting');
      const pods = waiting.filter((p) => p.ready);
      const warm = pods.filter((p) => p.volume !== '');
      return pods.length === 2 && waiting.length === 2 && warm.length === onReleased
        ? pods
        : undefined;
    },
    BUILD_TIMEOUT_MS,
  );
  return { names: ready.map((p) => p.name).sort(), volumes: ready.map((p) => p.volume).sort() };
}

/** What the agent logged about its warm pool (shapes learned, misses), for failure messages. */
async function agentPoolLines(): Promise<string> {
  const log = await readFile(join(temp.path, 'agent.log'), 'utf8').catch(() => '');
  return log
    .split('\n')
    .filter((line) => /warm pool|pool pod/.test(line))
    .slice(-20)
    .join('\n');
}

/** Builds run together, with the pool pod each took (watched while they ran). */
async function runThroughPool(
  pipelineId: string,
  count: number,
): Promise<{ runs: Awaited<ReturnType<typeof runBuild>>[]; held: Map<string, Set<string>> }> {
  const held = new Map<string, Set<string>>();
  let running = true;
  const watching = (async () => {
    while (running) {
      for (const pod of await poolPods())
        if (pod.state === 'taken')
          held.set(pod.build, (held.get(pod.build) ?? new Set()).add(pod.name));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  try {
    const runs = await Promise.all(Array.from({ length: count }, () => runBuild(pipelineId)));
    return { runs, held };
  } finally {
    running = false;
    await watching;
  }
}

test('with a warm pool, builds run on its pods (each on its own), the pool refills, the warm cache still hits, and runner delete takes the pods', async () => {
  const first = pipelineIds['first'] ?? '';
  await resources.apply({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: POOL_PRIORITY },
    value: -1000000,
    globalDefault: false,
  });
  // The agent of the runtime from now on keeps two pods ready while builds come.
  await agent.stop();
  agent = await startKubeAgent(plane, cluster(), {
    name: 'warm-pool-agent',
    runtime: RUNTIME,
    dir: temp.path,
    env: { SLUICE_WARM_POOL_MAX: '2', SLUICE_WARM_POOL_PRIORITY_CLASS: POOL_PRIORITY },
  });
  try {
    // The first build shows the agent what the runtime's pods look like: it runs on its own,
    // and the pool's first pod is made on the volume it let go.
    const taught = await runThroughPool(first, 1);
    assert.equal(taught.runs[0]?.status, 'success', taught.runs[0]?.log);
    assert.equal(taught.held.size, 0, 'no pool pod before a build showed their shape');
    const pool = await poolRefilled(1);
    const onTaught = (await poolPods()).filter((p) => p.volume !== '');
    assert.equal(onTaught.length, 1, JSON.stringify(onTaught));

    // Two builds at once: each on a pool pod of its own, and both pods were the pool's; the
    // one on the first build's volume is taken first, and finds its layers.
    const pair = await runThroughPool(first, 2);
    for (const run of pair.runs) assert.equal(run.status, 'success', run.log);
    const taken = pair.runs.map((run) => [...(pair.held.get(labelValue(run.build.id)) ?? [])]);
    assert.deepEqual(
      taken.map((names) => names.length),
      [1, 1],
      `${JSON.stringify(taken)}; the agent's pool lines:\n${await agentPoolLines()}`,
    );
    assert.deepEqual(taken.flat().sort(), pool.names, 'the two ready pods, one each');
    if (!pair.runs.some((run) => /Using cache/.test(run.log))) {
      // Which volume each build had, by its cache record, beside the volume the taught build
      // left: a pool pod on it that did not get it, or a volume without the layers.
      const records = await Promise.all(
        pair.runs.map(async (run) => (await settled(run.build.id)).cache),
      );
      assert.fail(
        `the build on the first build's volume found its layers: the pool pod on ${onTaught[0]?.volume ?? '?'} ` +
          `(${onTaught[0]?.name ?? '?'}); the builds' cache records ${JSON.stringify(records)}; ` +
          `the taught build's ${JSON.stringify((await settled(taught.runs[0]?.build.id ?? '')).cache)}; ` +
          `the agent's pool lines:\n${await agentPoolLines()}`,
      );
    }

    // Refilled while they ran, on new volumes (both warm ones were held); once the two builds
    // let theirs go, the pool moved onto them.
    const again = await poolRefilled(2);
    assert.ok(
      again.names.every((name) => !pool.names.includes(name)),
      'new pods',
    );
    assert.equal(new Set(again.volumes).size, 2, 'two volumes');
    const next = await runThroughPool(first, 2);
    for (const run of next.runs) {
      assert.equal(run.status, 'success', run.log);
      assert.match(
        run.log,
        /Using cache/,
        "a build through the pool found an earlier build's layers",
      );
      const record = (await settled(run.build.id)).cache;
      assert.equal(record?.outcome, 'hit', JSON.stringify(record));
      assert.ok(again.volumes.includes(record?.volume ?? ''), JSON.stringify(record));
    }
    // The pool pods carry the PriorityClass: real workloads preempt them.
    const [waiting] = (await poolPods()).filter((p) => p.state === 'waiting');
    const pod = await resources.read({ kind: 'Pod', namespace: NS, name: waiting?.name ?? '' });
    const spec = pod?.['spec'] as { priorityClassName?: string; priority?: number } | undefined;
    assert.deepEqual([spec?.priorityClassName, spec?.priority], [POOL_PRIORITY, -1000000]);
    // Each build's pool pod went with its build's objects.
    for (const run of [...pair.runs, ...next.runs]) await settled(run.build.id);
  } finally {
    // No agent refills the pool from here: the delete test below takes the pods left.
    await agent.stop();
  }
});

/** The volumes of the install's StorageClass, by name. */
async function classVolumes(): Promise<KubeResource[]> {
  return (await resources.list({ kind: 'PersistentVolume' }))
    .filter(
      (pv) => (pv['spec'] as { storageClassName?: string }).storageClassName === STORAGE_CLASS,
    )
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/** The delegate class of `delegatedVolume`: the controller-manager's host-path provisioner. */
const HOST_PATH = 'warm-host-path';

/**
 * A released volume of the delegated backend (`volumeBackend: delegate`) in the install's class,
 * as the provisioner leaves one: made by the delegate class's driver, kept with Retain.
 */
async function delegatedVolume(): Promise<{ name: string; path: string }> {
  await resources.create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: HOST_PATH },
    provisioner: 'kubernetes.io/host-path',
    reclaimPolicy: 'Delete',
  });
  const claim = { kind: 'PersistentVolumeClaim', namespace: NS, name: 'cloud-disk' };
  await resources.create({
    apiVersion: 'v1',
    ...claim,
    metadata: { name: claim.name, namespace: NS },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName: HOST_PATH,
      resources: { requests: { storage: '1Gi' } },
    },
  });
  const name = await waitForProbe('the delegate made a volume', async () => {
    const bound = await resources.read(claim);
    return (bound?.['spec'] as { volumeName?: string } | undefined)?.volumeName || undefined;
  });
  const pv = await resources.patch(
    { kind: 'PersistentVolume', name },
    {
      metadata: { annotations: { [VOLUME_ANNOTATIONS.delegateClass]: HOST_PATH } },
      spec: { persistentVolumeReclaimPolicy: 'Retain', storageClassName: STORAGE_CLASS },
    },
  );
  await resources.delete(claim);
  return { name, path: (pv?.['spec'] as { hostPath: { path: string } }).hostPath.path };
}

/** `sluice runner delete --yes` of the provisioner's install; what it printed. */
async function deleteInstall(more: string[]): Promise<string> {
  const run = await runSluice(
    [
      'runner',
      'delete',
      '--yes',
      '--kubeconfig',
      cluster().kubeconfigPath,
      '-n',
      NS,
      '--release',
      'warm',
      ...more,
    ],
    {
      env: {
        SLUICE_SERVER: plane.url,
        SLUICE_TOKEN: ADMIN_TOKEN,
        SLUICE_CONFIG: join(temp.path, 'cfg'),
        HTTPS_PROXY: '',
        HTTP_PROXY: '',
      },
    },
  );
  assert.equal(run.code, 0, run.stderr);
  return run.stderr;
}

test('runner delete --keep-volumes keeps the warm volumes and their directories for the next install, which adopts them; delete then takes each volume with its directory, and gives a cloud disk back to its driver', async () => {
  const parent = join(temp.path, 'volumes');
  const names = async () => (await classVolumes()).map((pv) => pv.metadata.name);
  const made = await names();
  assert.ok(made.length >= 4, `the builds' two volumes and the spares: ${made.join(', ')}`);

  const kept = await deleteInstall(['--keep-volumes']);
  assert.match(
    kept,
    new RegExp(`keeps ${made.length} PersistentVolume\\(s\\) of StorageClass ${STORAGE_CLASS}`),
  );
  assert.match(kept, new RegExp(`StorageClass ${STORAGE_CLASS} deleted`));
  assert.deepEqual(await resources.list({ kind: 'DaemonSet', namespace: NS }), []);
  assert.deepEqual(await names(), made, 'every volume kept');
  for (const pv of await classVolumes()) {
    // No agent is left to lift it: kept with it, a `kubectl delete pv` would hang.
    assert.ok(!pv.metadata.finalizers?.includes(VOLUME_FINALIZER), pv.metadata.name);
    assert.ok(existsSync(join(parent, pv.metadata.name)), `${pv.metadata.name}'s directory`);
  }

  // Installed again with the same StorageClass: the volume agent adopts them, spares included.
  await applyProvisioner();
  await waitForProbe('the kept volumes adopted by the new volume agent', async () =>
    (await classVolumes()).every((pv) => pv.metadata.finalizers?.includes(VOLUME_FINALIZER)),
  );
  assert.deepEqual(await names(), made, 'no spare made beyond the ones kept');

  const disk = await delegatedVolume();
  const removed = await deleteInstall([]);
  // A cloud disk goes back to its driver, which deletes it: never left in the account.
  assert.match(
    removed,
    new RegExp(
      `PersistentVolume ${disk.name} deleted, and its disk \\(a disk of StorageClass ${HOST_PATH}\\) by its driver`,
    ),
  );
  assert.equal(existsSync(disk.path), false, 'the host-path driver deleted the disk');
  for (const name of made)
    assert.match(
      removed,
      new RegExp(
        `PersistentVolume ${name} deleted, and its directory ${join(parent, name)} on node`,
      ),
    );
  assert.deepEqual(await names(), []);
  assert.deepEqual(readdirSync(parent), [], 'no directory left on the node');
  let left: Awaited<ReturnType<typeof poolPods>> = [];
  await waitForProbe("the warm pool's pods gone with their volumes", async () => {
    left = await poolPods();
    return left.length === 0 ? true : undefined;
  }).catch((err: unknown) => {
    throw new Error(`${String(err)}; left: ${JSON.stringify(left)}`);
  });
});
