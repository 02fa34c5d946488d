/**
 * Where a `KubeClient` connects and as whom, from one of three sources: the pod's service
 * account (in-cluster), a kubeconfig file and optional context, or an API server URL with a
 * bearer token and CA (the `*.runtime.yaml` shape). Every problem is an InputError
 * `SLUICE_KUBE_CONFIG_INVALID` naming the file, context or field, never the token. The proxy of
 * the environment is applied here unless the kubeconfig names its own `proxy-url`.
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from '@kubernetes/client-node';
import { InputError } from '@sluice/errors';
import { proxyUrlFor } from './proxy-env.js';
import type { ProxyEnv } from './proxy-env.js';

export type KubeSource =
  | { type: 'in-cluster' }
  | { type: 'kubeconfig'; path: string; context?: string }
  /** An API server URL, a service-account token and the cluster CA (PEM; the system CAs when absent). */
  | { type: 'token'; host: string; token: string; caPem?: string };

export interface LoadKubeConfigOptions {
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY and, in-cluster, KUBERNETES_SERVICE_HOST/PORT. */
  env: ProxyEnv;
  /** Where the pod's service account is mounted (in-cluster). */
  serviceAccountDir?: string;
}

export interface LoadedKubeConfig {
  kubeConfig: KubeConfig;
  server: string;
  /** The context's namespace; in-cluster, the service account's own. */
  namespace: string | undefined;
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function configError(message: string, hint: string, cause?: unknown): InputError {
  return new InputError('SLUICE_KUBE_CONFIG_INVALID', message, { hint, cause });
}

export function loadKubeConfig(
  source: KubeSource,
  options: LoadKubeConfigOptions,
): LoadedKubeConfig {
  const kubeConfig = new KubeConfig();
  switch (source.type) {
    case 'in-cluster':
      loadInCluster(kubeConfig, options);
      break;
    case 'kubeconfig':
      loadKubeconfigFile(kubeConfig, source.path, source.context);
      break;
    case 'token':
      loadToken(kubeConfig, source);
      break;
  }
  const cluster = applyProxy(kubeConfig, options.env);
  const namespace = kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace;
  return { kubeConfig, server: cluster.server, namespace: namespace?.trim() || undefined };
}

function loadInCluster(kubeConfig: KubeConfig, options: LoadKubeConfigOptions): void {
  const host = options.env['KUBERNETES_SERVICE_HOST'];
  const port = options.env['KUBERNETES_SERVICE_PORT'] || '443';
  if (host === undefined || host === '') {
    throw configError(
      'Not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST is not set',
      'Run the agent in the cluster, or give it a kubeconfig or a *.runtime.yaml file',
    );
  }
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) {
    throw configError(
      `No service-account token at ${tokenFile}`,
      'Mount the service account token (automountServiceAccountToken: true), or use a kubeconfig',
    );
  }
  const namespaceFile = join(dir, 'namespace');
  const namespace = existsSync(namespaceFile)
    ? readFileSync(namespaceFile, 'utf8').trim()
    : undefined;
  kubeConfig.loadFromOptions({
    clusters: [
      {
        name: 'in-cluster',
        server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
        caFile: join(dir, 'ca.crt'),
        skipTLSVerify: false,
      },
    ],
    // tokenFile: client-node re-reads it every minute, so rotated (bound) tokens keep working.
    users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile } } }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', namespace }],
    currentContext: 'in-cluster',
  });
}

function loadKubeconfigFile(kubeConfig: KubeConfig, path: string, context?: string): void {
  try {
    kubeConfig.loadFromFile(path);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw configError(
      `Kubeconfig ${path} could not be read: ${reason}`,
      'Check the path and that the file is a kubeconfig (kubectl config view --kubeconfig FILE)',
      err,
    );
  }
  if (context !== undefined) {
    if (kubeConfig.getContextObject(context) === null) {
      const known = kubeConfig.getContexts().map((c) => c.name);
      throw configError(
        `Kubeconfig ${path} has no context "${context}" (it has: ${known.join(', ') || 'none'})`,
        'Use one of the contexts listed',
      );
    }
    kubeConfig.setCurrentContext(context);
  }
  if (kubeConfig.getCurrentCluster() === null) {
    const current = kubeConfig.getCurrentContext() || '(none)';
    throw configError(
      `Kubeconfig ${path} names no cluster for its current context ${current}`,
      'Set current-context, or pass a context whose cluster is defined',
    );
  }
}

function loadToken(
  kubeConfig: KubeConfig,
  source: { host: string; token: string; caPem?: string },
): void {
  let url: URL | undefined;
  try {
    url = new URL(source.host);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw configError(
      `Kubernetes API server "${source.host}" is not an http(s) URL`,
      'Set host to the API server URL, e.g. https://10.0.0.1:6443',
    );
  }
  if (source.token.trim() === '') {
    throw configError(
      `No token for the Kubernetes API server ${source.host}`,
      'Set token to a service-account token',
    );
  }
  const caData =
    source.caPem === undefined ? undefined : Buffer.from(source.caPem).toString('base64');
  kubeConfig.loadFromOptions({
    clusters: [
      { name: 'runtime', server: source.host.replace(/\/+$/, ''), caData, skipTLSVerify: false },
    ],
    users: [{ name: 'runtime', token: source.token.trim() }],
    contexts: [{ name: 'runtime', cluster: 'runtime', user: 'runtime' }],
    currentContext: 'runtime',
  });
}

/** Sets the current cluster's proxy-url from the environment, unless it has one. */
function applyProxy(kubeConfig: KubeConfig, env: ProxyEnv): Cluster {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null)
    throw configError('The Kubernetes configuration has no current cluster', 'Check the source');
  if (cluster.proxyUrl !== undefined && cluster.proxyUrl !== '') return cluster;
  const proxyUrl = proxyUrlFor(cluster.server, env);
  if (proxyUrl === undefined) return cluster;
  const proxied: Cluster = { ...cluster, proxyUrl };
  kubeConfig.clusters = kubeConfig.clusters.map((c) => (c === cluster ? proxied : c));
  return proxied;
}
