/**
 * What the thin client leaves to @kubernetes/client-node, imported only when a configuration
 * needs it (see kube-client.ts): the credentials of a kubeconfig user with `exec` or
 * `auth-provider`, and the agent of a SOCKS proxy. Only the small structural part of
 * client-node's `KubeConfig` used here is typed, so none of its types reach our API.
 * @module
 */
import type { Agent } from 'node:http';
import type { KubePluginUser, LoadedKubeConfig } from './kube-config.js';

export interface HttpsOptionsOut {
  headers: Record<string, unknown>;
  cert?: unknown;
  key?: unknown;
  agent?: unknown;
}

/** The part of client-node's `KubeConfig` used here. */
export interface ClientNodeConfig {
  applyToHTTPSOptions(options: HttpsOptionsOut): Promise<void>;
}

/** client-node's `KubeConfig` for the kubeconfig file and context of a plugin user. */
export async function pluginConfig(plugin: KubePluginUser): Promise<ClientNodeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  config.loadFromFile(plugin.kubeconfigPath);
  config.setCurrentContext(plugin.context);
  return config;
}

/** An agent that connects through the SOCKS proxy `proxyUrl`, with the cluster's TLS settings. */
export async function socksAgent(
  loaded: LoadedKubeConfig,
  proxyUrl: string,
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer },
): Promise<Agent> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  const base64 = (value: Buffer | undefined) => value?.toString('base64');
  config.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: loaded.server,
        proxyUrl,
        skipTLSVerify: loaded.cluster.insecureSkipTlsVerify,
        caData: base64(tls.ca),
        tlsServerName: loaded.cluster.tlsServerName,
      },
    ],
    users: [{ name: 'u', certData: base64(tls.cert), keyData: base64(tls.key) }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  const options: HttpsOptionsOut = { headers: {} };
  await config.applyToHTTPSOptions(options);
  return options.agent as Agent;
}
