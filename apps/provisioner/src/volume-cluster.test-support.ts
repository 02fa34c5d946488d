/**
 * The provisioner's and node agent's tests on the real cluster (`*.kube.test.ts`): a namespace,
 * two StorageClasses (one WaitForFirstConsumer, one Immediate) served by a provisioner name of
 * the file's own, so files sharing the cluster never serve each other's claims, and the claims,
 * pods and waits the tests share.
 * @module
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, KubeResources } from '@sluice/kube';
import type { KubeResource } from '@sluice/kube';
import { adminSource, createNamespace } from '@sluice/kube/testing';
import { silentLogger } from '@sluice/log';
import { labelValue, REUSE_ANNOTATIONS } from '@sluice/runtime-spec';
import { CLUSTER_IMAGES, eventually } from '@sluice/testkit';
import { VOLUME_ANNOTATIONS } from './volume-objects.js';
import type { ClusterAccessor } from '@sluice/testkit';
import { NodeAgent } from './node-agent.js';
import { VolumeProvisioner } from './volume-provisioner.js';
import type { VolumeProvisionerOptions } from './volume-provisioner.js';
import { PROVISIONER_LABEL, SPARE_LABEL } from './volume-objects.js';

export interface VolumeTestNames {
  namespace: string;
  /** The provisioner name its classes and volumes carry. */
  provisioner: string;
  /** The StorageClasses: `<prefix>-wait` (WaitForFirstConsumer) and `<prefix>-now` (Immediate). */
  classPrefix: string;
}

export function volumeTestKit(cluster: ClusterAccessor, names: VolumeTestNames) {
  const NS = names.namespace;
  const PROVISIONER = names.provisioner;
  const WAIT = `${names.classPrefix}-wait`;
  const NOW = `${names.classPrefix}-now`;
  let resources: KubeResources | undefined;

  async function kube(): Promise<KubeResources> {
    if (resources !== undefined) return resources;
    await createNamespace(cluster(), NS);
    const client = KubeClient.create({ source: adminSource(cluster()), env: {} });
    resources = new KubeResources(client);
    for (const [name, mode] of [
      [WAIT, 'WaitForFirstConsumer'],
      [NOW, 'Immediate'],
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
    more: Partial<VolumeProvisionerOptions> = {},
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
      ...more,
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
        await removeSpares(agent);
      },
    };
  }

  /** This provisioner's volumes: other files on a shared cluster have provisioners of their own. */
  const OURS: string = `${PROVISIONER_LABEL}=${labelValue(PROVISIONER)}`;

  /**
   * Deletes the spares left by a test, so the next test's claims get volumes of its own directory;
   * with the test's node agent, until they are gone (it removes their directories).
   */
  async function removeSpares(agent?: NodeAgent): Promise<void> {
    const r = await kube();
    for (const pv of await r.list({
      kind: 'PersistentVolume',
      labelSelector: `${SPARE_LABEL},${OURS}`,
    }))
      await r.delete({ kind: 'PersistentVolume', name: pv.metadata.name });
    if (agent !== undefined) await deletionsDone(agent);
  }

  /**
   * Waits until the volumes deleted are gone, with passes of the node agent: a deleted volume stays
   * until the controller-manager drops its protection finalizer (once no claim binds it) and the
   * node agent has removed its directory and then its own finalizer.
   */
  async function deletionsDone(agent: NodeAgent): Promise<void> {
    const r = await kube();
    const terminating = await eventually(
      async () => {
        await agent.pass();
        return (await r.list({ kind: 'PersistentVolume', labelSelector: OURS }))
          .filter((pv) => pv.metadata.deletionTimestamp !== undefined)
          .map((pv) => pv.metadata.name);
      },
      (names) => names.length === 0,
      { timeoutMs: 60_000 },
    );
    assert.deepEqual(terminating, [], 'the deleted volumes are gone');
  }

  const tempParent = (): string => mkdtempSync(join(tmpdir(), 'sluice-volumes-'));

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
        // Its shell ignores SIGTERM: a running one would take the default 30 s to go.
        terminationGracePeriodSeconds: 0,
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

  /**
   * Waits until the volume is released: the provisioner has cleared its user, and the PV
   * controller has seen its claim go (no longer `Bound`; until then the node agent leaves it,
   * as a pod may still write there). Returns the volume.
   */
  async function released(name: string): Promise<KubeResource | undefined> {
    const pv = await eventually(
      async () => (await kube()).read({ kind: 'PersistentVolume', name }),
      (v) =>
        v?.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy] === undefined &&
        phaseOf(v) !== 'Bound',
      { timeoutMs: 30_000 },
    );
    assert.equal(pv?.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy], undefined, name);
    assert.notEqual(phaseOf(pv), 'Bound', `${name} is still Bound`);
    return pv;
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

  return {
    NS,
    WAIT,
    NOW,
    OURS,
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
  };
}
