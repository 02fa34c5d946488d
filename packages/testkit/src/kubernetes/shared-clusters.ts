/**
 * One test cluster per mode for a whole kube tier instead of one per test file. The test runner
 * (`scripts/run-tests.mjs`) starts them with `startSharedClusters` before the tier and stops them
 * after it; its test processes find them through `SLUICE_TEST_KUBE_SHARED`, a JSON file with
 * what each cluster's `KubernetesCluster` is made of, and `useKubernetes()` attaches to the one
 * of its mode (`attachSharedCluster`) instead of starting its own. A cluster belongs to the
 * process that started it (its record's `ownerPid`): a test file's start-up never sweeps a
 * shared cluster away as stale, and only the runner stops it.
 * @module
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { InternalError, isSluiceError, UnavailableError } from '@sluice/errors';
import type { ErrorDetails } from '@sluice/errors';
import { processAlive } from '@sluice/process';
import { readTestkitEnv } from '../config.js';
import { CLUSTER_IMAGES, importImages } from './cluster-images.js';
import { loadRecord } from './cluster-record.js';
import {
  KUBE_SHARED_NOT_STOPPABLE,
  KUBE_SHARED_UNREADABLE,
  KUBE_UNAVAILABLE,
} from './kube-errors.js';
import { findLeftovers } from './kube-teardown.js';
import { loadKubeConfig, startKubernetes } from './kubernetes-cluster.js';
import type { KubernetesCluster, StartKubernetesOptions } from './kubernetes-cluster.js';

export type ClusterMode = KubernetesCluster['mode'];

/** A shared cluster as the description file holds it: the cluster's data, no functions. */
export interface SharedClusterData {
  id: string;
  mode: ClusterMode;
  dir: string;
  logsDir: string;
  server: string;
  kubeconfigPath: string;
  caFile: string;
  nodeName: string | undefined;
  podSubnet: string | undefined;
  containerdSocket: string | undefined;
  timings: KubernetesCluster['timings'];
  startedAt: number;
  /** The images imported into the node (none in API-only mode). */
  images: string[];
}

/** A shared cluster that did not start: each file that needs it fails with this error. */
export interface SharedClusterFailure {
  failed: { code: string; message: string; hint?: string; details?: ErrorDetails };
}

export interface SharedClustersDescription {
  /** The process that owns the clusters (the test runner). */
  ownerPid: number;
  clusters: Partial<Record<ClusterMode, SharedClusterData | SharedClusterFailure>>;
}

export interface SharedClusters {
  /** For the test processes' environment: `SLUICE_TEST_KUBE_SHARED` naming the description. */
  env: Record<string, string>;
  description: SharedClustersDescription;
  /**
   * Stops the cluster of `mode` (checking nothing is left), once its last file has run, or every
   * shared cluster and the description when no mode is named.
   */
  stop(mode?: ClusterMode): Promise<void>;
}

/**
 * Starts one cluster per mode, one after the other (their first start may install packages); the
 * node has every image of `CLUSTER_IMAGES`. A cluster that fails to start is described as failed
 * rather than thrown: the files that need it report its error, with its step and log, as they
 * would for a cluster of their own.
 */
export async function startSharedClusters(
  modes: readonly ClusterMode[],
  log: (line: string) => void = () => undefined,
): Promise<SharedClusters> {
  const images: string[] = Object.values(CLUSTER_IMAGES);
  const started = new Map<ClusterMode, KubernetesCluster>();
  const description: SharedClustersDescription = { ownerPid: process.pid, clusters: {} };
  for (const mode of new Set(modes)) {
    const nodes = mode === 'node';
    try {
      const cluster = await startKubernetes({
        nodes,
        // The pause image is every node's already.
        ...(nodes ? { images: images.filter((image) => image !== CLUSTER_IMAGES.pause) } : {}),
        log: (line) => log(`${mode}: ${line}`),
      });
      started.set(mode, cluster);
      description.clusters[mode] = describeCluster(cluster, nodes ? images : []);
      log(`${mode}: shared cluster ${cluster.id} ready at ${cluster.server}`);
    } catch (err) {
      log(`${mode}: the shared cluster did not start: ${String(err)}`);
      description.clusters[mode] = describeFailure(err);
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'sluice-shared-clusters-'));
  const file = join(dir, 'clusters.json');
  await writeFile(file, `${JSON.stringify(description, null, 2)}\n`);
  const stopping = new Map<ClusterMode, Promise<void>>();
  const stopMode = (mode: ClusterMode): Promise<void> => {
    let stopped = stopping.get(mode);
    if (stopped === undefined) {
      stopped = started.get(mode)?.stop() ?? Promise.resolve();
      stopping.set(mode, stopped);
    }
    return stopped;
  };
  let stoppedAll: Promise<void> | undefined;
  return {
    env: { SLUICE_TEST_KUBE_SHARED: file },
    description,
    stop: (mode) =>
      mode === undefined
        ? (stoppedAll ??= stopAll([...started.keys()].reverse(), stopMode, dir))
        : stopMode(mode),
  };
}

/** Stops the clusters one after the other, the last started first, then the description. */
async function stopAll(
  modes: readonly ClusterMode[],
  stopMode: (mode: ClusterMode) => Promise<void>,
  dir: string,
): Promise<void> {
  const errors: unknown[] = [];
  for (const mode of modes) await stopMode(mode).catch((err: unknown) => errors.push(err));
  await rm(dir, { recursive: true, force: true });
  if (errors.length > 0) throw errors[0];
}

/** The cluster's data (JSON leaves out what is undefined, as in API-only mode). */
function describeCluster(cluster: KubernetesCluster, images: readonly string[]): SharedClusterData {
  return {
    id: cluster.id,
    mode: cluster.mode,
    dir: cluster.dir,
    logsDir: dirname(cluster.logPath('any')),
    server: cluster.server,
    kubeconfigPath: cluster.kubeconfigPath,
    caFile: cluster.caFile,
    nodeName: cluster.nodeName,
    podSubnet: cluster.podSubnet,
    containerdSocket: cluster.containerdSocket,
    timings: cluster.timings,
    startedAt: cluster.startedAt,
    images: [...images],
  };
}

function describeFailure(err: unknown): SharedClusterFailure {
  if (!isSluiceError(err))
    return { failed: { code: KUBE_UNAVAILABLE, message: `A shared test cluster: ${String(err)}` } };
  return { failed: { code: err.code, message: err.message, hint: err.hint, details: err.details } };
}

/**
 * The shared cluster of the options' mode, when the test runner shares one (the description at
 * `descriptionPath`, `SLUICE_TEST_KUBE_SHARED`); undefined when it shares none of that mode.
 * Images the file asks for that the shared node lacks are imported first.
 */
export async function attachSharedCluster(
  options: StartKubernetesOptions,
  descriptionPath = readTestkitEnv().kubeShared,
): Promise<KubernetesCluster | undefined> {
  if (descriptionPath === undefined) return undefined;
  const description = await readDescription(descriptionPath);
  const entry = description.clusters[options.nodes ? 'node' : 'api-only'];
  if (entry === undefined) return undefined;
  if ('failed' in entry) {
    const { code, message, hint, details } = entry.failed;
    throw new UnavailableError(code, message, { hint, details });
  }
  const missing = (options.images ?? []).filter((image) => !entry.images.includes(image));
  if (missing.length > 0 && entry.containerdSocket !== undefined) {
    options.log?.(`shared test node: importing ${missing.join(', ')} into containerd`);
    await importImages(missing, {
      socket: entry.containerdSocket,
      cacheDir: join(readTestkitEnv().kubeCacheDir, 'images'),
    });
  }
  return attachedCluster(entry);
}

export async function readDescription(path: string): Promise<SharedClustersDescription> {
  const unreadable = (why: string, cause?: unknown) =>
    new UnavailableError(
      KUBE_SHARED_UNREADABLE,
      `The shared test clusters' description ${path} ${why}`,
      {
        cause,
        hint: 'run the kube tier with node scripts/run-tests.mjs kube, or unset SLUICE_TEST_KUBE_SHARED',
      },
    );
  let description: SharedClustersDescription;
  try {
    description = JSON.parse(await readFile(path, 'utf8')) as SharedClustersDescription;
  } catch (err) {
    throw unreadable('could not be read', err);
  }
  if (typeof description.clusters !== 'object' || description.clusters === null)
    throw unreadable('has no clusters');
  // The clusters go with their owner: a runner that died left nothing to attach to.
  if (!processAlive(description.ownerPid))
    throw unreadable(`belongs to process ${description.ownerPid}, which is gone`);
  return description;
}

/** A `KubernetesCluster` over a shared cluster: everything but `stop`, which is the runner's. */
export function attachedCluster(data: SharedClusterData): KubernetesCluster {
  return {
    id: data.id,
    mode: data.mode,
    dir: data.dir,
    server: data.server,
    kubeconfigPath: data.kubeconfigPath,
    kubeConfig: loadKubeConfig(data.kubeconfigPath),
    caFile: data.caFile,
    nodeName: data.nodeName,
    podSubnet: data.podSubnet,
    containerdSocket: data.containerdSocket,
    timings: data.timings,
    startedAt: data.startedAt,
    logPath: (component) => join(data.logsDir, `${component}.log`),
    stop: () =>
      Promise.reject(
        new InternalError(
          KUBE_SHARED_NOT_STOPPABLE,
          `Test cluster ${data.id} is shared by the test run: only the test runner stops it`,
          {
            hint: 'a file that stops its cluster asks for its own: useKubernetes({ ownCluster: true })',
          },
        ),
      ),
    leftovers: async () =>
      findLeftovers(
        (await loadRecord(data.dir)) ?? {
          id: data.id,
          dir: data.dir,
          logsDir: data.logsDir,
          ownerPid: -1,
          processes: [],
        },
      ),
  };
}
