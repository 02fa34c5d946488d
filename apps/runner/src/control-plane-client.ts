/**
 * The agent's only connection out: the typed client for the control plane, over undici with
 * `EnvHttpProxyAgent`, so HTTP_PROXY, HTTPS_PROXY and NO_PROXY (and their lowercase forms) are
 * honoured as a corporate network expects. Node 20's own fetch ignores them.
 * @module
 */
import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';

export interface ControlPlaneClientOptions {
  serverUrl: string;
  token: string;
  /** Defaults to process.env; tests pass their own. */
  env?: NodeJS.ProcessEnv;
}

function proxyOptions(env: NodeJS.ProcessEnv) {
  const pick = (name: string) => env[name] ?? env[name.toLowerCase()];
  return {
    httpProxy: pick('HTTP_PROXY'),
    httpsProxy: pick('HTTPS_PROXY'),
    noProxy: pick('NO_PROXY'),
    // A long-poll holds the response for up to a minute.
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  };
}

export interface ControlPlaneConnection {
  client: SluiceClient;
  /** Closes the pooled connections, so a server stopping after the agent is not held open. */
  close(): Promise<void>;
}

export function createControlPlaneClient(
  options: ControlPlaneClientOptions,
): ControlPlaneConnection {
  const dispatcher = new EnvHttpProxyAgent(proxyOptions(options.env ?? process.env));
  const doFetch = ((input: URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
  const client = createClient({ baseUrl: options.serverUrl, token: options.token, fetch: doFetch });
  return { client, close: () => dispatcher.close() };
}
