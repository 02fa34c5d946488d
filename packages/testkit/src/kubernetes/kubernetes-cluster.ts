/**
 * A real single-node Kubernetes v1.20 for tests (shared reference: real-kubernetes.md), in one of
 * two modes. API-only: etcd, apiserver, controller-manager and scheduler; pods stay Pending but
 * every API, watch, RBAC, finalizer and PV/PVC-binding behaviour is real (about 5 s to ready).
 * With a node: also containerd, a CNI bridge, a kubelet and kube-proxy, so pods run and reach
 * Services (`kubernetes.default` included: in-cluster config works). Binaries come from
 * `ensureKubernetesBinaries` (built once per machine). `stop()` leaves nothing behind, and a
 * cluster whose test process died is cleaned up by the next start.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { readTestkitEnv } from '../config.js';
import { ensureDockerEngine } from '../docker-engine.js';
import { CLUSTER_DIR_PREFIX, findStaleClusters, newRecord, saveRecord } from './cluster-record.js';
import type { ClusterRecord } from './cluster-record.js';
import { ensureClusterImages } from './cluster-images.js';
import { apiserverUrl, pickPorts, startApiServer, startControllers } from './control-plane.js';
import { CONTROL_PLANE_PACKAGES, ensureHostPackages, NODE_PACKAGES } from './host-packages.js';
import { ensureKubernetesBinaries } from './kube-build.js';
import type { KubernetesBinaries } from './kube-build.js';
import { NODE_NAME, prepareNode, startKubelet } from './kube-node.js';
import type { NodeContext } from './kube-node.js';
import { createKubePki } from './kube-pki.js';
import { startKubeProxy } from './kube-proxy.js';
import type { KubePki } from './kube-pki.js';
import { findLeftovers, teardownCluster } from './kube-teardown.js';
import { writeKubeconfig } from './kubeconfig.js';

export interface StartKubernetesOptions {
  /** true: a kubelet on containerd runs pods; false: API only (pods stay Pending). */
  nodes: boolean;
  /** Local Docker images to import into the node (built by images/build-cluster-images.sh). */
  images?: readonly string[];
  log?: (line: string) => void;
}

export interface KubernetesCluster {
  id: string;
  mode: 'api-only' | 'node';
  /** The cluster's state: PKI, kubeconfigs, etcd data, containerd and kubelet roots. Component logs are beside it, in `<dir>-logs/` (see `logPath`). */
  dir: string;
  server: string;
  /** Admin (system:masters) kubeconfig file, for kubectl-style tools and child processes. */
  kubeconfigPath: string;
  /** The same admin credentials loaded for @kubernetes/client-node. */
  kubeConfig: KubeConfig;
  caFile: string;
  /** The node's name (`localhost`), or undefined in API-only mode. */
  nodeName: string | undefined;
  /** The pods' /24, or undefined in API-only mode. */
  podSubnet: string | undefined;
  /** The node's containerd socket (`ctr --address`), or undefined in API-only mode. */
  containerdSocket: string | undefined;
  /** Milliseconds from the start (binaries and images ready) to the API and the node ready. */
  timings: { apiReadyMs: number; nodeReadyMs: number | undefined };
  /** When the start began (Date.now()), to time later events from the same origin. */
  startedAt: number;
  /** The log file of a component: etcd, kube-apiserver, containerd, kubelet, ... */
  logPath(component: string): string;
  /** Stops everything and checks nothing is left; safe to call twice. */
  stop(): Promise<void>;
  /** What of the cluster is still on the machine (empty after a clean stop), for tests. */
  leftovers(): Promise<string[]>;
}

export async function startKubernetes(options: StartKubernetesOptions): Promise<KubernetesCluster> {
  const log = options.log ?? (() => undefined);
  const { kubeCacheDir, kubeStateRoot } = readTestkitEnv();
  await sweepStaleClusters(kubeStateRoot, log);
  const binaries = await ensureKubernetesBinaries({ log, cacheDir: kubeCacheDir });
  const hostPrograms = await ensureHostPackages(
    options.nodes ? [...CONTROL_PLANE_PACKAGES, ...NODE_PACKAGES] : CONTROL_PLANE_PACKAGES,
    log,
  );
  const id = randomBytes(3).toString('hex');
  const dir = join(kubeStateRoot, `${CLUSTER_DIR_PREFIX}${id}`);
  const record = newRecord(id, dir);
  await mkdir(dir, { recursive: true });
  await mkdir(record.logsDir, { recursive: true });
  await saveRecord(record);
  try {
    if (options.nodes) {
      await ensureDockerEngine({ log });
      await ensureClusterImages({ log, logPath: join(record.logsDir, 'images.log') });
    }
    const etcd = hostPrograms.get('etcd') ?? 'etcd';
    return await bringUp(record, {
      ...options,
      binaries,
      etcd,
      imageCacheDir: join(kubeCacheDir, 'images'),
    });
  } catch (err) {
    // The error names a log under logsDir: keep them for the person reading it.
    await teardownCluster(record, { keepLogs: true }).catch(() => undefined);
    throw err;
  }
}

interface BringUpOptions extends StartKubernetesOptions {
  binaries: KubernetesBinaries;
  etcd: string;
  imageCacheDir: string;
}

async function bringUp(record: ClusterRecord, options: BringUpOptions): Promise<KubernetesCluster> {
  const startedAt = Date.now();
  const pki = await createKubePki(join(record.dir, 'pki'), NODE_NAME);
  const ports = await pickPorts();
  const server = apiserverUrl(ports);
  const kubeconfigs = await writeKubeconfigs(record.dir, pki, server);
  const nodeContext = recordKeeping(record, pki, options);
  const layout = {
    dir: record.dir,
    logsDir: record.logsDir,
    pki,
    etcdBinary: options.etcd,
    kubeconfigs,
  };
  const { track } = nodeContext;
  // The node does not need the apiserver until its kubelet starts, nor the kubelet the
  // controllers: each pair starts at once.
  const [apiserver, node] = await settleBoth(
    startApiServer(layout, ports, options.binaries, track),
    options.nodes ? prepareNode(nodeContext) : Promise.resolve(undefined),
  );
  let nodeReadyMs: number | undefined;
  await settleBoth(
    startControllers(layout, options.binaries, { server, track }),
    node === undefined
      ? Promise.resolve()
      : startKubelet(nodeContext, node, server).then(async () => {
          nodeReadyMs = Date.now() - startedAt;
          await startKubeProxy(nodeContext, node, server);
        }),
  );
  let stopped: Promise<void> | undefined;
  return {
    id: record.id,
    mode: options.nodes ? 'node' : 'api-only',
    dir: record.dir,
    server,
    kubeconfigPath: kubeconfigs.admin,
    kubeConfig: loadKubeConfig(kubeconfigs.admin),
    caFile: pki.ca.cert,
    nodeName: options.nodes ? NODE_NAME : undefined,
    podSubnet: node?.layout.podSubnet,
    containerdSocket: node?.socket,
    timings: { apiReadyMs: apiserver.apiReadyMs, nodeReadyMs },
    startedAt,
    logPath: (component) => join(record.logsDir, `${component}.log`),
    stop: () => (stopped ??= teardownCluster(record)),
    leftovers: () => findLeftovers(record),
  };
}

/**
 * The node's context, whose `save` and `track` keep the record current. The control plane and
 * the node start at once, so saves are queued: two writes of the record must not interleave.
 */
function recordKeeping(record: ClusterRecord, pki: KubePki, options: BringUpOptions): NodeContext {
  let saving = Promise.resolve();
  const save = (): Promise<void> => (saving = saving.then(() => saveRecord(record)));
  const track = (component: { name: string; pid: number }): Promise<void> => {
    record.processes.push({ name: component.name, pid: component.pid });
    return save();
  };
  return {
    record,
    save,
    track,
    pki,
    binaries: options.binaries,
    images: options.images ?? [],
    imageCacheDir: options.imageCacheDir,
    log: options.log ?? (() => undefined),
  };
}

interface ClusterKubeconfigs {
  admin: string;
  controllerManager: string;
  scheduler: string;
}

async function writeKubeconfigs(
  dir: string,
  pki: KubePki,
  server: string,
): Promise<ClusterKubeconfigs> {
  const at = join(dir, 'kubeconfigs');
  await mkdir(at, { recursive: true });
  const { tokens } = pki;
  const write = (name: string, user: string, token: string): Promise<string> =>
    writeKubeconfig(join(at, `${name}.kubeconfig`), { server, caFile: pki.ca.cert, user, token });
  return {
    admin: await write('admin', 'sluice-test-admin', tokens.admin),
    controllerManager: await write(
      'controller-manager',
      'system:kube-controller-manager',
      tokens.controllerManager,
    ),
    scheduler: await write('scheduler', 'system:kube-scheduler', tokens.scheduler),
  };
}

/** The admin kubeconfig file loaded for @kubernetes/client-node (also by attached test processes). */
export function loadKubeConfig(path: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(path);
  return config;
}

/** Tears down clusters left by test processes that died (timeouts, Ctrl-C, kill -9). */
async function sweepStaleClusters(stateRoot: string, log: (line: string) => void): Promise<void> {
  for (const stale of await findStaleClusters(stateRoot)) {
    log(`cleaning up a test cluster left by a process that is gone: ${stale.dir}`);
    const record = stale.record ?? newRecord('unknown', stale.dir);
    await teardownCluster(record).catch((err: unknown) =>
      log(`could not clean ${stale.dir} up: ${String(err)}`),
    );
  }
}

/** Both results once both have settled, or the first failure once both have settled. */
async function settleBoth<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'rejected') throw ra.reason;
  if (rb.status === 'rejected') throw rb.reason;
  return [ra.value, rb.value];
}
