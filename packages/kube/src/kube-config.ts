/**
 * Where a `KubeClient` connects and as whom, from one of three sources: the pod's service
 * account (in-cluster), a kubeconfig file and optional context, or an API server URL with a
 * bearer token and CA (the `*.runtime.yaml` shape). Every problem is an InputError
 * `SLUICE_KUBE_CONFIG_INVALID` naming the file, context or field, never the token. The proxy of
 * the environment is applied here unless the kubeconfig names its own `proxy-url`.
 *
 * Read without @kubernetes/client-node (see kube-client.ts for why): tokens, token files,
 * client certificates, basic auth, CAs, insecure-skip-tls-verify, tls-server-name and proxy-url
 * are ours. A kubeconfig user with `exec` or `auth-provider` is marked `plugin`, and only then
 * does the client load client-node to obtain its credentials.
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { InputError } from '@sluice/errors';
import { KubeconfigProblem, kubeconfigContexts, readKubeconfig } from './kubeconfig-file.js';
import type { KubeconfigCluster, KubeconfigUser } from './kubeconfig-file.js';
import { proxyUrlFor } from '@sluice/protocol/node';
import type { ProxyEnv } from '@sluice/protocol/node';

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

/** Credentials only client-node can obtain: the kubeconfig and context to load it with. */
export interface KubePluginUser {
  kind: 'exec' | 'auth-provider';
  kubeconfigPath: string;
  context: string;
}

export interface LoadedKubeConfig {
  /** The API server URL, without a trailing slash. */
  server: string;
  /** The context's namespace; in-cluster, the service account's own. */
  namespace: string | undefined;
  /** How the server's certificate is checked: CA (PEM or file), skip-verify, server name. */
  cluster: Omit<KubeconfigCluster, 'server' | 'proxyUrl'>;
  /** Who the client is; `plugin` when client-node must obtain the credentials. */
  user: Omit<KubeconfigUser, 'plugin'> & { plugin?: KubePluginUser };
  /** The proxy for the API server: the kubeconfig's own, else the environment's. */
  proxyUrl: string | undefined;
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function configError(message: string, hint: string, cause?: unknown): InputError {
  return new InputError('SLUICE_KUBE_CONFIG_INVALID', message, { hint, cause });
}

export function loadKubeConfig(
  source: KubeSource,
  options: LoadKubeConfigOptions,
): LoadedKubeConfig {
  const loaded = loadSource(source, options);
  const proxyUrl = loaded.proxyUrl ?? proxyUrlFor(loaded.server, options.env);
  return { ...loaded, proxyUrl };
}

function loadSource(source: KubeSource, options: LoadKubeConfigOptions): LoadedKubeConfig {
  switch (source.type) {
    case 'in-cluster':
      return loadInCluster(options);
    case 'kubeconfig':
      return loadKubeconfigFile(source.path, source.context);
    case 'token':
      return loadToken(source);
  }
}

function loadInCluster(options: LoadKubeConfigOptions): LoadedKubeConfig {
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
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    namespace: namespace || undefined,
    cluster: { caFile: join(dir, 'ca.crt'), insecureSkipTlsVerify: false },
    // Re-read every minute, so rotated (bound) tokens keep working.
    user: { tokenFile },
    proxyUrl: undefined,
  };
}

function loadKubeconfigFile(path: string, context?: string): LoadedKubeConfig {
  try {
    const choice = readKubeconfig(path, context);
    const { server, proxyUrl, ...cluster } = choice.cluster;
    const { plugin, ...user } = choice.user ?? {};
    return {
      server,
      namespace: choice.namespace,
      cluster,
      user:
        plugin === undefined
          ? user
          : {
              ...user,
              plugin: { kind: plugin, kubeconfigPath: path, context: choice.contextName },
            },
      proxyUrl,
    };
  } catch (err) {
    if (!(err instanceof KubeconfigProblem)) throw err;
    switch (err.kind) {
      case 'unreadable':
        throw configError(
          `Kubeconfig ${path} could not be read: ${err.message}`,
          'Check the path and that the file is a kubeconfig (kubectl config view --kubeconfig FILE)',
          err,
        );
      case 'no-context':
        throw configError(`Kubeconfig ${path} ${err.message}`, 'Use one of the contexts listed');
      case 'no-cluster':
        throw configError(
          `Kubeconfig ${path} ${err.message}`,
          'Set current-context, or pass a context whose cluster is defined',
        );
    }
  }
}

function loadToken(source: { host: string; token: string; caPem?: string }): LoadedKubeConfig {
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
  return {
    server: source.host.replace(/\/+$/, ''),
    namespace: undefined,
    cluster: { insecureSkipTlsVerify: false, ...(caData === undefined ? {} : { caData }) },
    user: { token: source.token.trim() },
    proxyUrl: undefined,
  };
}

/**
 * The contexts of a kubeconfig file and its current one (`sluice runner init` offers them).
 * @throws InputError `SLUICE_KUBE_CONFIG_INVALID` when the file cannot be read.
 */
export function listKubeContexts(path: string): { names: string[]; current: string | undefined } {
  try {
    return kubeconfigContexts(path);
  } catch (err) {
    throw configError(
      `Kubeconfig ${path} could not be read: ${(err as Error).message}`,
      'Check the path and that the file is a kubeconfig (kubectl config view --kubeconfig FILE)',
      err,
    );
  }
}
