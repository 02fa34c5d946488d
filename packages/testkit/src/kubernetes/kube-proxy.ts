/**
 * Services for a test node's pods, as on any cluster: kube-proxy in iptables mode (built from
 * the same Debian source as the other components), and the `kubernetes` Service's endpoint set
 * to the node's bridge address, where the apiserver also listens. A pod then reaches the API
 * server at `kubernetes.default` (10.96.0.1:443, given to pods as KUBERNETES_SERVICE_HOST/PORT),
 * so in-cluster configuration works with no host alias or forwarder. There is no cluster DNS
 * (Debian has no CoreDNS): pods use the Service environment variables or addresses. Teardown
 * runs `kube-proxy --cleanup`, which removes every KUBE-* iptables chain and jump it made.
 * @module
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { freeLoopbackPort } from '../postgres.js';
import { runCommand } from '../run-command.js';
import { startComponent, waitUntil } from './component-process.js';
import { KUBE_UNAVAILABLE, stepFailed } from './kube-errors.js';
import { probe } from './kube-http.js';
import type { NodeContext, PreparedNode } from './kube-node.js';
import { KUBERNETES_SERVICE_IP } from './kube-pki.js';
import { NODE_NAME } from './kube-node.js';
import { writeKubeconfig } from './kubeconfig.js';

/** The pods' gateway: the bridge's address (the CNI bridge plugin gives it `.1`). */
export function bridgeAddress(podSubnet: string): string {
  return podSubnet.replace(/\.0\/24$/, '.1');
}

export function kubeProxyArgs(options: {
  kubeconfig: string;
  podSubnet: string;
  healthzPort: number;
  metricsPort: number;
}): string[] {
  return [
    `--kubeconfig=${options.kubeconfig}`,
    '--proxy-mode=iptables',
    `--cluster-cidr=${options.podSubnet}`,
    `--hostname-override=${NODE_NAME}`,
    '--bind-address=127.0.0.1',
    `--healthz-bind-address=127.0.0.1:${options.healthzPort}`,
    `--metrics-bind-address=127.0.0.1:${options.metricsPort}`,
    // Root here lacks CAP_SYS_RESOURCE: no negative oom_score_adj. The conntrack settings are
    // the machine's, left as they are (0); route_localnet is saved and restored (node-sysctls).
    '--oom-score-adj=0',
    '--conntrack-max-per-core=0',
    '--conntrack-tcp-timeout-established=0',
    '--conntrack-tcp-timeout-close-wait=0',
    // Only the test's own bridge address serves NodePorts, never the machine's other interfaces.
    `--nodeport-addresses=${options.podSubnet}`,
    '--iptables-sync-period=5s',
  ];
}

/** The `kubernetes` Endpoints object pointing at the apiserver on the bridge address. */
export function kubernetesEndpoints(address: string, port: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'kubernetes', namespace: 'default' },
    subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
  };
}

/**
 * Points the `kubernetes` Service at the apiserver's bridge address, starts kube-proxy and
 * waits until its rules send 10.96.0.1:443 there.
 */
export async function startKubeProxy(
  ctx: NodeContext,
  node: PreparedNode,
  server: string,
): Promise<void> {
  const { podSubnet } = node.layout;
  const apiserverPort = Number(new URL(server).port);
  const endpoints = kubernetesEndpoints(bridgeAddress(podSubnet), apiserverPort);
  const auth = { caFile: ctx.pki.ca.cert, token: ctx.pki.tokens.admin };
  const url = `${server}/api/v1/namespaces/default/endpoints/kubernetes`;
  const put = await probe(url, { ...auth, method: 'PUT', body: endpoints });
  const written =
    put?.status === 200 || put?.status === 201
      ? put
      : await probe(`${server}/api/v1/namespaces/default/endpoints`, {
          ...auth,
          method: 'POST',
          body: endpoints,
        });
  if (written?.status !== 200 && written?.status !== 201)
    throw stepFailed(KUBE_UNAVAILABLE, 'Starting kube-proxy', 'write the kubernetes Endpoints', {
      output: written?.body ?? 'no answer from the apiserver',
    });
  const dir = join(node.layout.dir, 'kube-proxy');
  await mkdir(dir, { recursive: true });
  const kubeconfig = await writeKubeconfig(join(dir, 'kube-proxy.kubeconfig'), {
    server,
    caFile: ctx.pki.ca.cert,
    user: 'system:kube-proxy',
    token: ctx.pki.tokens.proxy,
  });
  const binary = ctx.binaries.path('kube-proxy');
  ctx.record.kubeProxy = binary;
  await ctx.save();
  const args = kubeProxyArgs({
    kubeconfig,
    podSubnet,
    healthzPort: await freeLoopbackPort(),
    metricsPort: await freeLoopbackPort(),
  });
  ctx.log('test node: starting kube-proxy (iptables mode)');
  const proxy = startComponent('kube-proxy', [binary, ...args], {
    logPath: join(ctx.record.logsDir, 'kube-proxy.log'),
  });
  await ctx.track(proxy);
  await waitUntil(serviceRuleExists, {
    step: `kube-proxy rules for the kubernetes Service (${KUBERNETES_SERVICE_IP}:443)`,
    timeoutMs: 60_000,
    component: proxy,
  });
}

async function serviceRuleExists(): Promise<boolean> {
  const rules = await runCommand('iptables', ['-w', '-t', 'nat', '-S', 'KUBE-SERVICES']);
  return rules.code === 0 && rules.stdout.includes(`${KUBERNETES_SERVICE_IP}/32`);
}
