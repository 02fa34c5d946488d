/**
 * The control plane of a test cluster: etcd (plain HTTP on loopback), kube-apiserver
 * (Node,RBAC authorization, token and client-certificate authentication),
 * kube-controller-manager (service accounts, garbage collection, PV/PVC binding) and
 * kube-scheduler. Everything listens on 127.0.0.1 only, on ports the kernel picked free.
 * The argument builders are pure so their flags are unit-tested.
 * @module
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { freeLoopbackPort } from '../postgres.js';
import { runCommand } from '../run-command.js';
import { assertRunning, startComponent, waitUntil } from './component-process.js';
import type { ComponentProcess } from './component-process.js';
import type { KubernetesBinaries } from './kube-build.js';
import { probe } from './kube-http.js';
import type { KubePki } from './kube-pki.js';
import { SERVICE_CLUSTER_IP_RANGE } from './kube-pki.js';

export interface ControlPlanePorts {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
}

export interface ControlPlaneLayout {
  dir: string;
  logsDir: string;
  pki: KubePki;
  etcdBinary: string;
  kubeconfigs: { controllerManager: string; scheduler: string };
}

export function etcdArgs(layout: ControlPlaneLayout, ports: ControlPlanePorts): string[] {
  const client = `http://127.0.0.1:${ports.etcdClient}`;
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  return [
    '--name=default',
    `--data-dir=${join(layout.dir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    '--logger=zap',
    '--log-level=warn',
  ];
}

export function apiserverArgs(layout: ControlPlaneLayout, ports: ControlPlanePorts): string[] {
  const { pki } = layout;
  return [
    `--etcd-servers=http://127.0.0.1:${ports.etcdClient}`,
    // Every address, so that pods reach it through the `kubernetes` Service (kube-proxy DNATs
    // 10.96.0.1:443 to the node's bridge address); clients on the machine use 127.0.0.1.
    '--bind-address=0.0.0.0',
    '--advertise-address=127.0.0.1',
    `--secure-port=${ports.apiserver}`,
    // 1.20 still opens an unauthenticated port 8080 unless told not to.
    '--insecure-port=0',
    `--cert-dir=${join(layout.dir, 'apiserver')}`,
    `--tls-cert-file=${pki.apiserver.cert}`,
    `--tls-private-key-file=${pki.apiserver.key}`,
    `--client-ca-file=${pki.ca.cert}`,
    `--token-auth-file=${pki.tokensFile}`,
    `--service-account-key-file=${pki.serviceAccount.pub}`,
    `--service-account-signing-key-file=${pki.serviceAccount.key}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NodeRestriction',
    '--allow-privileged=true',
    // A loopback address cannot be the kubernetes Service's endpoint: with a node, the test kit
    // writes the endpoint itself (the bridge address, kube-proxy.ts).
    '--endpoint-reconciler-type=none',
    `--kubelet-client-certificate=${pki.apiserverKubeletClient.cert}`,
    `--kubelet-client-key=${pki.apiserverKubeletClient.key}`,
    `--kubelet-certificate-authority=${pki.ca.cert}`,
    '--kubelet-preferred-address-types=Hostname,InternalIP',
    ...frontProxyArgs(pki),
    '--profiling=false',
  ];
}

function frontProxyArgs(pki: KubePki): string[] {
  return [
    `--requestheader-client-ca-file=${pki.frontProxyCa.cert}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${pki.frontProxyClient.cert}`,
    `--proxy-client-key-file=${pki.frontProxyClient.key}`,
  ];
}

export function controllerManagerArgs(layout: ControlPlaneLayout): string[] {
  const { pki } = layout;
  return [
    `--kubeconfig=${layout.kubeconfigs.controllerManager}`,
    '--leader-elect=false',
    // No serving ports: nothing scrapes them, and fixed ports would clash between clusters.
    '--port=0',
    '--secure-port=0',
    `--service-account-private-key-file=${pki.serviceAccount.key}`,
    `--root-ca-file=${pki.ca.cert}`,
    `--cluster-signing-cert-file=${pki.ca.cert}`,
    `--cluster-signing-key-file=${pki.ca.key}`,
    '--use-service-account-credentials=true',
    // A claim that races its volume's informer is retried at this period (default 15 s).
    '--pvclaimbinder-sync-period=2s',
    // The in-tree `kubernetes.io/host-path` dynamic provisioner: a real provisioner of new
    // volumes for the provisioner's delegate StorageClass (its directories under /tmp).
    '--enable-hostpath-provisioner=true',
    `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
    '--cluster-name=sluice-test',
    '--profiling=false',
  ];
}

export function schedulerArgs(layout: ControlPlaneLayout): string[] {
  return [
    `--kubeconfig=${layout.kubeconfigs.scheduler}`,
    '--leader-elect=false',
    '--port=0',
    '--secure-port=0',
    '--profiling=false',
  ];
}

export interface RunningControlPlane {
  server: string;
  /** Milliseconds from the call to the apiserver's /readyz answering ok. */
  apiReadyMs: number;
}

/** etcd, then the apiserver, each passed to `track` once started; resolves once /readyz is ok. */
export async function startApiServer(
  layout: ControlPlaneLayout,
  ports: ControlPlanePorts,
  binaries: KubernetesBinaries,
  track: (component: ComponentProcess) => Promise<void>,
): Promise<RunningControlPlane> {
  const started = Date.now();
  const log = logIn(layout);
  await memoryBackedEtcdDir(join(layout.dir, 'etcd'));
  const etcd = startComponent('etcd', [layout.etcdBinary, ...etcdArgs(layout, ports)], {
    logPath: log('etcd'),
  });
  await track(etcd);
  const etcdHealth = `http://127.0.0.1:${ports.etcdClient}/health`;
  await waitUntil(async () => (await probe(etcdHealth))?.status === 200, {
    step: 'etcd /health',
    timeoutMs: 30_000,
    component: etcd,
  });
  const apiserver = startComponent(
    'kube-apiserver',
    [binaries.path('kube-apiserver'), ...apiserverArgs(layout, ports)],
    { logPath: log('kube-apiserver') },
  );
  await track(apiserver);
  const server = apiserverUrl(ports);
  const probeOptions = { caFile: layout.pki.ca.cert, token: layout.pki.tokens.admin };
  await waitUntil(async () => (await probe(`${server}/readyz`, probeOptions))?.status === 200, {
    step: 'kube-apiserver /readyz',
    timeoutMs: 90_000,
    component: apiserver,
  });
  return { server, apiReadyMs: Date.now() - started };
}

/**
 * etcd's data directory on a tmpfs of its own (unmounted with the cluster's other mounts at
 * teardown): etcd syncs every write to disk, and on a machine whose one disk the test node's
 * pods write to as they start, each sync took long enough to slow every API request (a
 * production etcd has a disk of its own). Best effort: without the right to mount, on disk.
 */
async function memoryBackedEtcdDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await runCommand('mount', ['-t', 'tmpfs', '-o', 'size=1g,mode=0700', 'tmpfs', dir]);
}

function logIn(layout: ControlPlaneLayout): (name: string) => string {
  return (name) => join(layout.logsDir, `${name}.log`);
}

export interface ControllerContext {
  server: string;
  track: (component: ComponentProcess) => Promise<void>;
}

/**
 * The controller-manager and the scheduler, against a ready apiserver. Resolves once the
 * controller-manager has made the `default` ServiceAccount, without which pods are refused.
 */
export async function startControllers(
  layout: ControlPlaneLayout,
  binaries: KubernetesBinaries,
  ctx: ControllerContext,
): Promise<void> {
  const log = logIn(layout);
  const cmArgs = controllerManagerArgs(layout);
  const cm = startComponent(
    'kube-controller-manager',
    [binaries.path('kube-controller-manager'), ...cmArgs],
    { logPath: log('kube-controller-manager') },
  );
  await ctx.track(cm);
  const scheduler = startComponent(
    'kube-scheduler',
    [binaries.path('kube-scheduler'), ...schedulerArgs(layout)],
    { logPath: log('kube-scheduler') },
  );
  await ctx.track(scheduler);
  const url = `${ctx.server}/api/v1/namespaces/default/serviceaccounts/default`;
  const options = { caFile: layout.pki.ca.cert, token: layout.pki.tokens.admin };
  await waitUntil(async () => (await probe(url, options))?.status === 200, {
    step: 'kube-controller-manager creating the default ServiceAccount',
    timeoutMs: 60_000,
    component: cm,
  });
  // The scheduler serves no port to probe here; by now it has either started or exited.
  assertRunning(scheduler, 'kube-scheduler start');
}

export function apiserverUrl(ports: ControlPlanePorts): string {
  return `https://127.0.0.1:${ports.apiserver}`;
}

/** Three distinct loopback ports nobody listens on right now. */
export async function pickPorts(): Promise<ControlPlanePorts> {
  const ports = new Set<number>();
  while (ports.size < 3) ports.add(await freeLoopbackPort());
  const [etcdClient = 0, etcdPeer = 0, apiserver = 0] = [...ports];
  return { etcdClient, etcdPeer, apiserver };
}
