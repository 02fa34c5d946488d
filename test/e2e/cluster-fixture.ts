/**
 * What the runner's cluster tests share: a control plane (`sluice server`, reachable from pods
 * when asked), a Kubernetes runtime environment for a namespace, an agent identity, a `sluice
 * agent` process with its metrics port, and small readers of the cluster and the database.
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createNamespace } from '@sluice/kube/testing';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { buildObjectName } from '@sluice/runtime-spec';
import { eventually, freeLoopbackPort } from '@sluice/testkit';
import type { KubernetesCluster } from '@sluice/testkit';
import { serverDatabase, SLUICE_AGENT_BIN, SLUICE_BIN } from './cli-harness.js';

export const ADMIN_TOKEN = 'slu_u_runner-cluster-admin-0123456789';
/**
 * The StorageClass of the test file's hand-made volumes (`prepareBuildCluster`,
 * `addHostPathVolume`), named for the file's process: files sharing a cluster never bind each
 * other's volumes, nor create the same class twice.
 */
export const TEST_STORAGE_CLASS = `sluice-test-${randomBytes(3).toString('hex')}`;

export interface ControlPlane {
  child: ChildProcess;
  /** The URL the test and the agent use (loopback). */
  url: string;
  port: number;
  admin: SluiceClient;
  stop(): Promise<void>;
}

/**
 * Probes until it returns a value other than undefined or false, which it resolves to; a probe
 * that throws counts as not yet, and the last error is named if the time runs out.
 */
export async function waitForProbe<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 120_000,
  intervalMs = 250,
): Promise<T> {
  let last: unknown;
  const value = await eventually(
    () =>
      probe().catch((err: unknown) => {
        last = err;
        return undefined;
      }),
    (v) => v !== undefined && v !== false,
    { timeoutMs, intervalMs },
  );
  if (value === undefined || value === false)
    throw new Error(
      `Timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
    );
  return value;
}

/**
 * `sluice server` on all addresses (pods reach it through the node's bridge). Its database is
 * `database`, or else a new one of the run's shared PostgreSQL (`serverDatabase`), dropped by
 * `stop`: what these files test does not depend on the database kind, and a server on PGlite
 * took over the probe's minute to open its database in a loaded run. The server on PGlite stays
 * covered by the e2e tier (`sluice up`) and by the chart's server in control-plane-in-cluster.
 */
export async function startControlPlane(options: {
  database?: { url?: string; dataDir?: string };
  logPath: string;
  env?: NodeJS.ProcessEnv;
}): Promise<ControlPlane> {
  const own = options.database === undefined ? await serverDatabase() : undefined;
  const database = options.database ?? own?.target ?? {};
  const port = await freeLoopbackPort();
  const args = [SLUICE_BIN, 'server', '--port', String(port), '--host', '0.0.0.0'];
  if (database.dataDir) args.push('--data-dir', database.dataDir);
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      DATABASE_URL: database.url ?? '',
      SLUICE_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
      SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
      SLUICE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(options.logPath);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  const admin = createClient({ baseUrl: url, token: ADMIN_TOKEN });
  const stop = async () => {
    await stopChild(child);
    await own?.close();
  };
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  try {
    // A server that exits (a bad setting, a database it cannot reach) ends the wait at once.
    await waitForProbe(
      `the control plane (its log: ${options.logPath})`,
      async () => exited() || (await fetch(`${url}/api/health`)).ok,
      60_000,
    );
    if (exited()) {
      throw new Error(
        `the control plane exited (${child.exitCode ?? child.signalCode}) before it answered; its log: ${options.logPath}`,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, url, port, admin, stop };
}

export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

export interface KubeRuntimeOptions {
  name: string;
  namespace: string;
  controlPlaneUrl?: string;
  storageClassName?: string;
  /** Make it the account's default runtime environment. */
  isDefault?: boolean;
}

/** A runtime environment extending `system/default/k8s` on the local test images. */
export async function createKubeRuntime(admin: SluiceClient, options: KubeRuntimeOptions) {
  const spec = {
    metadata: { name: options.name },
    extends: ['system/default/k8s'],
    ...(options.controlPlaneUrl ? { controlPlaneUrl: options.controlPlaneUrl } : {}),
    runtimeScheduler: {
      type: 'KubernetesPod',
      image: 'sluice/engine:1',
      imagePullPolicy: 'Never',
      cluster: { namespace: options.namespace, serviceAccount: 'default' },
      resources: { requests: { cpu: '50m', memory: '64Mi' } },
      terminationGracePeriodSeconds: 10,
    },
    dockerDaemonScheduler: {
      type: 'DindKubernetesPod',
      dindImage: 'sluice/dind:1',
      imagePullPolicy: 'Never',
      cluster: { namespace: options.namespace },
      defaultDindResources: { requests: { cpu: '100m', memory: '128Mi' } },
      terminationGracePeriodSeconds: 10,
      pvcs: {
        dind: {
          volumeSize: '1Gi',
          storageClassName: options.storageClassName ?? TEST_STORAGE_CLASS,
        },
      },
    },
  };
  await admin.call('createRuntimeEnvironment', { body: { name: options.name, spec } });
  if (options.isDefault) {
    await admin.call('setDefaultRuntimeEnvironment', { params: { name: options.name } });
  }
}

export async function createAgentToken(admin: SluiceClient, name: string, runtimes: string[]) {
  const { agent, token } = await admin.call('createAgent', { body: { name, runtimes } });
  return { agentId: agent.id, token };
}

export interface AgentProcess {
  child: ChildProcess;
  metricsUrl: string;
  /** The value of one Prometheus sample, summed over its label sets. */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startAgentProcess(options: {
  serverUrl: string;
  token: string;
  args: string[];
  logPath: string;
  env?: NodeJS.ProcessEnv;
}): Promise<AgentProcess> {
  const port = await freeLoopbackPort();
  const args = ['--server-url', options.serverUrl, '--http-port', String(port)];
  args.push('--http-host', '127.0.0.1', ...options.args);
  // The deployed entrypoint, run through its own `#!` line (Node's flags for the agent).
  const child = spawn(SLUICE_AGENT_BIN, args, {
    env: { ...process.env, SLUICE_AGENT_TOKEN: options.token, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(options.logPath, { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  await waitForProbe(`the agent's /metrics (log: ${options.logPath})`, async () => {
    if (child.exitCode !== null) throw new Error(`the agent exited with ${child.exitCode}`);
    return (await fetch(metricsUrl)).ok;
  });
  return {
    child,
    metricsUrl,
    async metric(name, labels = {}) {
      const text = await (await fetch(metricsUrl)).text();
      return sumSamples(text, name, labels);
    },
    stop: (signal = 'SIGTERM') => stopChild(child, signal),
  };
}

export function sumSamples(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match?.[1] !== name) continue;
    const set = match[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`)))
      sum += Number(match[3]);
  }
  return sum;
}

export interface BuildObjects {
  pods: string[];
  secrets: string[];
  configMaps: string[];
  pvcs: string[];
}

/** Every object carrying the build's label in `namespace`. */
export async function buildObjects(
  kubeConfig: KubeConfig,
  namespace: string,
  buildId?: string,
): Promise<BuildObjects> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const labelSelector = buildId
    ? `sluice.io/build-id=${buildId}`
    : 'app.kubernetes.io/managed-by=sluice';
  const names = (list: { items: { metadata?: { name?: string } }[] }) =>
    list.items.map((i) => i.metadata?.name ?? '').sort();
  const [pods, secrets, configMaps, pvcs] = await Promise.all([
    core.listNamespacedPod({ namespace, labelSelector }),
    core.listNamespacedSecret({ namespace, labelSelector }),
    core.listNamespacedConfigMap({ namespace, labelSelector }),
    core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }),
  ]);
  return {
    pods: names(pods),
    secrets: names(secrets),
    configMaps: names(configMaps),
    pvcs: names(pvcs),
  };
}

/** The objects the agent makes for one build on the fixture's runtime, by name. */
export function expectedObjects(buildId: string): BuildObjects {
  return {
    pods: [buildObjectName('dind', buildId), buildObjectName('engine', buildId)],
    secrets: [buildObjectName('sluice-engine', buildId)],
    configMaps: [buildObjectName('dind-config', buildId)],
    pvcs: [buildObjectName('pvc-dind', buildId)],
  };
}

export function objectCount(objects: BuildObjects): number {
  return (
    objects.pods.length + objects.secrets.length + objects.configMaps.length + objects.pvcs.length
  );
}

/**
 * What a build on the node test cluster needs beside the control plane: the file's StorageClass
 * with no provisioner (`TEST_STORAGE_CLASS`), whose volumes `addHostPathVolume` makes by hand.
 * No registry: the cluster is air-gapped, and the engine image carries `sluice/busybox:1`,
 * which it loads onto each new dind volume (apps/engine/src/containers/carried-images.ts).
 */
export async function prepareBuildCluster(kubeConfig: KubeConfig): Promise<void> {
  await kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
    body: {
      metadata: { name: TEST_STORAGE_CLASS },
      provisioner: 'kubernetes.io/no-provisioner',
      volumeBindingMode: 'Immediate',
      reclaimPolicy: 'Retain',
    },
  });
}

/** A fresh hostPath volume of the file's class (`TEST_STORAGE_CLASS`), for the next build's PVC. */
export async function addHostPathVolume(
  kubeConfig: KubeConfig,
  name: string,
  path: string,
): Promise<void> {
  mkdirSync(path);
  await kubeConfig.makeApiClient(CoreV1Api).createPersistentVolume({
    body: {
      metadata: { name },
      spec: {
        storageClassName: TEST_STORAGE_CLASS,
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        hostPath: { path },
      },
    },
  });
}

/** A `*.runtime.yaml` of the agent's config dir: a runtime reached with a service-account token. */
export function writeRuntimeFile(
  dir: string,
  file: string,
  runtime: { name: string; host: string; namespace: string; token: string; crt: string },
): void {
  mkdirSync(dir, { recursive: true });
  const crt = runtime.crt
    .trim()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  writeFileSync(
    join(dir, file),
    `type: runtime\nname: ${runtime.name}\nhost: ${runtime.host}\nnamespace: ${runtime.namespace}\ntoken: ${runtime.token}\ncrt: |\n${crt}\n`,
  );
}

export interface BuildPlane {
  plane: ControlPlane;
  /** The node's bridge address: how pods reach this machine. */
  gateway: string;
}

/**
 * What a test of builds on the cluster starts from: the StorageClass, a control plane pods reach
 * through the node's bridge, the namespace, and a Kubernetes runtime environment on the test
 * images that is the account default.
 */
export async function startBuildPlane(
  cluster: KubernetesCluster,
  options: { dir: string; namespace: string; runtime: string; storageClassName?: string },
): Promise<BuildPlane> {
  await prepareBuildCluster(cluster.kubeConfig);
  const gateway = (cluster.podSubnet ?? '').replace(/\.0\/24$/, '.1');
  const plane = await startControlPlane({
    logPath: join(options.dir, 'server.log'),
  });
  await createNamespace(cluster, options.namespace);
  await createKubeRuntime(plane.admin, {
    name: options.runtime,
    namespace: options.namespace,
    controlPlaneUrl: `http://${gateway}:${plane.port}`,
    isDefault: true,
    ...(options.storageClassName === undefined
      ? {}
      : { storageClassName: options.storageClassName }),
  });
  return { plane, gateway };
}

/**
 * `sluice agent` on this machine serving one runtime of the node test cluster through its
 * kubeconfig (engine pods reach their dind pod by IP: the cluster has no DNS), with an agent
 * token of its own; its log in `<dir>/agent.log`.
 */
export async function startKubeAgent(
  plane: ControlPlane,
  cluster: KubernetesCluster,
  options: { name: string; runtime: string; dir: string; env?: NodeJS.ProcessEnv },
): Promise<AgentProcess> {
  const { token } = await createAgentToken(plane.admin, options.name, [options.runtime]);
  return startAgentProcess({
    serverUrl: plane.url,
    token,
    logPath: join(options.dir, 'agent.log'),
    args: [
      '--kube-runtime',
      options.runtime,
      '--kubeconfig',
      cluster.kubeconfigPath,
      '--dind-host-alias',
    ],
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}

/**
 * For an agent on an API-only cluster: with no node every build pod stays Unschedulable, which
 * the pod monitor would report (and the control plane retry) after 10 s; tests of tasks, leases
 * and permissions there are not about scheduling.
 */
export const NO_NODE_AGENT_ARGS = ['--unschedulable-grace-seconds', '86400'] as const;
