/**
 * A test cluster's node: the pod network (bridge, /24, one FORWARD rule), the pods' cgroup, a
 * private containerd with the CRI plugin, the images the tests need, and a kubelet that
 * registers as a node named `localhost` (so the apiserver reaches it on loopback for logs and
 * exec). Each piece goes into the cluster record before it is made, so teardown finds it.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freeLoopbackPort } from '../postgres.js';
import { runCommand } from '../run-command.js';
import type { ClusterRecord } from './cluster-record.js';
import { importImages } from './cluster-images.js';
import { startComponent, waitUntil } from './component-process.js';
import type { ComponentProcess } from './component-process.js';
import type { KubernetesBinaries } from './kube-build.js';
import { KUBE_UNAVAILABLE, stepFailed } from './kube-errors.js';
import { probe } from './kube-http.js';
import { CONTAINER_LOG_DIR, POD_LOG_DIR, SHIM_SOCKET_DIR } from './kube-teardown.js';
import type { KubePki } from './kube-pki.js';
import { writeKubeconfig } from './kubeconfig.js';
import { createCgroup } from './node-cgroups.js';
import { readSysctls } from './node-sysctls.js';
import {
  cniConflist,
  containerdConfig,
  containerdPaths,
  kubeletArgs,
  kubeletConfig,
  PAUSE_IMAGE,
} from './node-config.js';
import type { NodeLayout } from './node-config.js';
import {
  addForwardRule,
  chooseSubnet,
  createBridge,
  forwardRule,
  usedRoutes,
} from './node-network.js';

/** Resolves to 127.0.0.1 on every machine, which is what the apiserver dials for logs and exec. */
export const NODE_NAME = 'localhost';

export interface NodeContext {
  record: ClusterRecord;
  save: () => Promise<void>;
  track: (component: ComponentProcess) => Promise<void>;
  pki: KubePki;
  binaries: KubernetesBinaries;
  /** Local Docker images to import (the pause image is always imported). */
  images: readonly string[];
  imageCacheDir: string;
  log: (line: string) => void;
}

export interface PreparedNode {
  layout: NodeLayout;
  /** containerd's socket. */
  socket: string;
}

/**
 * Everything a node needs before the kubelet (network, cgroup, containerd, images); it does not
 * need the apiserver, so it runs while the control plane starts.
 */
export async function prepareNode(ctx: NodeContext): Promise<PreparedNode> {
  const layout = await prepareNetworkAndCgroup(ctx);
  ctx.log(`test node: bridge ${layout.bridge}, pods on ${layout.podSubnet}; starting containerd`);
  const socket = await startContainerd(ctx, layout);
  const images = [PAUSE_IMAGE.replace(/^docker\.io\//, ''), ...ctx.images];
  ctx.log(`test node: importing ${images.join(', ')} into containerd`);
  await importImages(images, { socket, cacheDir: ctx.imageCacheDir });
  return { layout, socket };
}

/** Starts the kubelet against the running apiserver and waits for the node to be Ready. */
export async function startKubelet(
  ctx: NodeContext,
  node: PreparedNode,
  server: string,
): Promise<void> {
  ctx.log('test node: starting the kubelet');
  const { layout, socket } = node;
  const nodeDir = join(layout.dir, 'node');
  await mkdir(nodeDir, { recursive: true });
  const config = join(nodeDir, 'kubelet.json');
  await writeFile(config, kubeletConfig(layout));
  const kubeconfig = await writeKubeconfig(join(nodeDir, 'kubelet.kubeconfig'), {
    server,
    caFile: ctx.pki.ca.cert,
    user: `system:node:${NODE_NAME}`,
    token: ctx.pki.tokens.node,
  });
  const args = kubeletArgs(layout, { config, kubeconfig, socket });
  // The kubelet writes pod logs to /var/log whatever its root dir; teardown removes what it adds.
  ctx.record.createdLogDirs = [POD_LOG_DIR, CONTAINER_LOG_DIR].filter((d) => !existsSync(d));
  ctx.record.sysctls = await readSysctls();
  await ctx.save();
  const kubelet = startComponent('kubelet', [ctx.binaries.path('kubelet'), ...args], {
    logPath: join(ctx.record.logsDir, 'kubelet.log'),
  });
  await ctx.track(kubelet);
  await waitUntil(() => nodeReady(ctx, server), {
    step: `node ${NODE_NAME} Ready`,
    timeoutMs: 120_000,
    component: kubelet,
  });
}

async function prepareNetworkAndCgroup(ctx: NodeContext): Promise<NodeLayout> {
  const { record } = ctx;
  const podSubnet = chooseSubnet(await usedRoutes(), Number.parseInt(record.id, 16));
  if (podSubnet === undefined) {
    throw stepFailed(
      KUBE_UNAVAILABLE,
      'Starting the test node',
      'find a free /24 in 10.244.0.0/16 for pods',
    );
  }
  record.bridge = `slk${record.id}`;
  record.forwardRule = forwardRule(record.bridge, record.id);
  record.cgroupRoot = `/sluice-${record.id}`;
  await ctx.save();
  await createBridge(record.bridge);
  await addForwardRule(record.forwardRule);
  await createCgroup(record.cgroupRoot);
  return {
    dir: record.dir,
    nodeName: NODE_NAME,
    bridge: record.bridge,
    podSubnet,
    cgroupRoot: record.cgroupRoot,
    kubeletPort: await freeLoopbackPort(),
    caFile: ctx.pki.ca.cert,
    kubeletCert: ctx.pki.kubelet.cert,
    kubeletKey: ctx.pki.kubelet.key,
  };
}

/** Returns containerd's socket once `ctr version` answers on it. */
async function startContainerd(ctx: NodeContext, layout: NodeLayout): Promise<string> {
  const paths = containerdPaths(layout.dir);
  await mkdir(paths.cniConfDir, { recursive: true });
  await mkdir(paths.root, { recursive: true });
  await writeFile(join(paths.cniConfDir, '10-sluice-bridge.conflist'), cniConflist(layout));
  await writeFile(paths.config, containerdConfig(layout));
  ctx.record.containerdSocket = paths.socket;
  ctx.record.shimSocketDirExisted = existsSync(SHIM_SOCKET_DIR);
  await ctx.save();
  const containerd = startComponent('containerd', ['containerd', '--config', paths.config], {
    logPath: join(ctx.record.logsDir, 'containerd.log'),
  });
  await ctx.track(containerd);
  const version = async (): Promise<boolean> =>
    (await runCommand('ctr', ['--address', paths.socket, 'version'], { timeoutMs: 5000 })).code ===
    0;
  await waitUntil(version, {
    step: 'containerd answering on its socket',
    timeoutMs: 30_000,
    component: containerd,
  });
  return paths.socket;
}

interface NodeStatus {
  status?: { conditions?: { type: string; status: string }[] };
}

async function nodeReady(ctx: NodeContext, server: string): Promise<boolean> {
  const result = await probe(`${server}/api/v1/nodes/${NODE_NAME}`, {
    caFile: ctx.pki.ca.cert,
    token: ctx.pki.tokens.admin,
  });
  if (result?.status !== 200) return false;
  const node = JSON.parse(result.body) as NodeStatus;
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}
