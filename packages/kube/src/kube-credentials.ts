/**
 * The headers that say who a request comes from: a bearer token, a token file re-read every
 * minute (in-cluster bound tokens rotate; client-go does the same), basic auth, impersonation.
 * A kubeconfig user with `exec` or `auth-provider` (OIDC, gcp, azure, a credential plugin) is
 * the one case handed to @kubernetes/client-node, imported on the first request that needs it:
 * its authenticators run the plugin, cache and refresh the token, and may return a client
 * certificate, which the transport then uses.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { pluginConfig } from './client-node-fallback.js';
import type { ClientNodeConfig, HttpsOptionsOut } from './client-node-fallback.js';
import type { KubePluginUser, LoadedKubeConfig } from './kube-config.js';
import type { KubeTransport } from './kube-transport.js';

export interface KubeCredentials {
  /** Headers for the next request. @throws when a token file or a plugin fails. */
  headers(): Promise<Record<string, string>>;
}

const TOKEN_FILE_TTL_MS = 60_000;

export function createKubeCredentials(
  user: LoadedKubeConfig['user'],
  transport: KubeTransport,
  now: () => number = Date.now,
): KubeCredentials {
  const fixed: Record<string, string> = {};
  if (user.impersonate !== undefined) fixed['impersonate-user'] = user.impersonate;
  if (user.plugin !== undefined) return pluginCredentials(user.plugin, transport, fixed);
  if (user.token !== undefined) {
    const headers = { ...fixed, authorization: `Bearer ${user.token}` };
    return { headers: () => Promise.resolve(headers) };
  }
  if (user.tokenFile !== undefined) return tokenFileCredentials(user.tokenFile, fixed, now);
  if (user.username !== undefined) {
    const basic = Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64');
    const headers = { ...fixed, authorization: `Basic ${basic}` };
    return { headers: () => Promise.resolve(headers) };
  }
  return { headers: () => Promise.resolve(fixed) };
}

function tokenFileCredentials(
  path: string,
  fixed: Record<string, string>,
  now: () => number,
): KubeCredentials {
  let cached: { headers: Record<string, string>; at: number } | undefined;
  let reading: Promise<Record<string, string>> | undefined;
  return {
    headers() {
      if (cached !== undefined && now() - cached.at < TOKEN_FILE_TTL_MS)
        return Promise.resolve(cached.headers);
      reading ??= readFile(path, 'utf8')
        .then((token) => {
          const headers = { ...fixed, authorization: `Bearer ${token.trim()}` };
          cached = { headers, at: now() };
          return headers;
        })
        .finally(() => (reading = undefined));
      return reading;
    },
  };
}

function pluginCredentials(
  plugin: KubePluginUser,
  transport: KubeTransport,
  fixed: Record<string, string>,
): KubeCredentials {
  let config: Promise<ClientNodeConfig> | undefined;
  return {
    async headers() {
      config ??= pluginConfig(plugin);
      const options: HttpsOptionsOut = { headers: {} };
      await (await config).applyToHTTPSOptions(options);
      if (options.cert !== undefined || options.key !== undefined)
        transport.setClientCertificate(asBuffer(options.cert), asBuffer(options.key));
      const headers: Record<string, string> = { ...fixed };
      for (const [name, value] of Object.entries(options.headers)) {
        if (typeof value === 'string') headers[name.toLowerCase()] = value;
      }
      return headers;
    },
  };
}

function asBuffer(value: unknown): Buffer | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value;
  return typeof value === 'string' ? Buffer.from(value) : undefined;
}
