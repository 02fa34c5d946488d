/**
 * A throwaway PKI for one test cluster: the cluster CA, the apiserver's serving certificate,
 * its client certificate for kubelets (in system:masters), the kubelet's serving certificate,
 * the front-proxy CA and client, the service-account key pair, and a static token file for
 * the admin, the controller-manager, the scheduler, the node and kube-proxy.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCa, createKeyPair, issueCert } from './openssl-certs.js';
import type { CertFiles } from './openssl-certs.js';

/** The first address of the service range: the `kubernetes` Service's ClusterIP. */
export const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

export interface ClusterTokens {
  admin: string;
  controllerManager: string;
  scheduler: string;
  node: string;
  /** kube-proxy's (`system:kube-proxy`, bound to `system:node-proxier` by default RBAC). */
  proxy: string;
}

export interface KubePki {
  dir: string;
  ca: CertFiles;
  apiserver: CertFiles;
  apiserverKubeletClient: CertFiles;
  kubelet: CertFiles;
  frontProxyCa: CertFiles;
  frontProxyClient: CertFiles;
  serviceAccount: { key: string; pub: string };
  tokensFile: string;
  tokens: ClusterTokens;
}

export async function createKubePki(dir: string, nodeName: string): Promise<KubePki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ca = await createCa(dir, 'ca', 'sluice-test-cluster-ca');
  const frontProxyCa = await createCa(dir, 'front-proxy-ca', 'sluice-test-front-proxy-ca');
  const [leaves, serviceAccount] = await Promise.all([
    issueLeaves(dir, ca, nodeName),
    createKeyPair(dir, 'service-account'),
  ]);
  const frontProxyClient = await issueCert(dir, 'front-proxy-client', {
    ca: frontProxyCa,
    commonName: 'front-proxy-client',
    usage: 'client',
  });
  const tokens: ClusterTokens = {
    admin: token(),
    controllerManager: token(),
    scheduler: token(),
    node: token(),
    proxy: token(),
  };
  const tokensFile = join(dir, 'tokens.csv');
  await writeFile(tokensFile, tokenCsv(tokens, nodeName), { mode: 0o600 });
  return { dir, ca, ...leaves, frontProxyCa, frontProxyClient, serviceAccount, tokensFile, tokens };
}

type ClusterLeaves = Pick<KubePki, 'apiserver' | 'apiserverKubeletClient' | 'kubelet'>;

/** The certificates the cluster CA signs: apiserver serving, apiserver→kubelet, kubelet serving. */
async function issueLeaves(dir: string, ca: CertFiles, nodeName: string): Promise<ClusterLeaves> {
  const sans = ['DNS:localhost', `DNS:${nodeName}`, 'DNS:kubernetes', 'DNS:kubernetes.default'];
  sans.push('DNS:kubernetes.default.svc', 'DNS:kubernetes.default.svc.cluster.local');
  sans.push('IP:127.0.0.1', `IP:${KUBERNETES_SERVICE_IP}`);
  const [apiserver, apiserverKubeletClient, kubelet] = await Promise.all([
    issueCert(dir, 'apiserver', { ca, commonName: 'kube-apiserver', sans, usage: 'server' }),
    issueCert(dir, 'apiserver-kubelet-client', {
      ca,
      commonName: 'kube-apiserver-kubelet-client',
      organization: 'system:masters',
      usage: 'client',
    }),
    issueCert(dir, 'kubelet', {
      ca,
      commonName: `system:node:${nodeName}`,
      organization: 'system:nodes',
      sans: ['DNS:localhost', `DNS:${nodeName}`, 'IP:127.0.0.1'],
      usage: 'server',
    }),
  ]);
  return { apiserver, apiserverKubeletClient, kubelet };
}

/** The apiserver's --token-auth-file: token,user,uid,"groups". */
export function tokenCsv(tokens: ClusterTokens, nodeName: string): string {
  return [
    `${tokens.admin},sluice-test-admin,sluice-test-admin,"system:masters"`,
    `${tokens.controllerManager},system:kube-controller-manager,system:kube-controller-manager`,
    `${tokens.scheduler},system:kube-scheduler,system:kube-scheduler`,
    `${tokens.node},system:node:${nodeName},system:node:${nodeName},"system:nodes"`,
    `${tokens.proxy},system:kube-proxy,system:kube-proxy`,
    '',
  ].join('\n');
}

function token(): string {
  return randomBytes(24).toString('hex');
}
