/**
 * The agent's only connection out: the typed client for the control plane, over undici, so
 * HTTPS_PROXY, HTTP_PROXY and NO_PROXY (upper case first, then lower case) are honoured as a
 * corporate network expects; Node 20's own fetch ignores them. The agent talks to one server,
 * so whether to use a proxy is decided once, by the same rule as its Kubernetes connections
 * (`proxyUrlFor`, Go's: the proxy of the URL's scheme, never for loopback, NO_PROXY with
 * domains, addresses and CIDR ranges). undici's `EnvHttpProxyAgent`, which makes that decision
 * per request, warns that it is experimental on every start, and proxies loopback.
 * @module
 */
import { Agent, fetch as undiciFetch, ProxyAgent } from 'undici';
import { proxyUrlFor } from '@sluice/kube/settings';
import type { ProxyEnv } from '@sluice/kube/settings';
import { isSluiceError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';

export interface ControlPlaneClientOptions {
  serverUrl: string;
  token: string;
  /** Defaults to process.env; tests pass their own. */
  env?: ProxyEnv;
}

export interface ControlPlaneConnection {
  client: SluiceClient;
  /** Closes the pooled connections, so a server stopping after the agent is not held open. */
  close(): Promise<void>;
}

// A long-poll holds the response for up to a minute.
const TIMEOUTS = { headersTimeout: 120_000, bodyTimeout: 120_000 };

/** A `fetch` for calls to `serverUrl` and the pool behind it. */
export interface ControlPlaneFetch {
  fetch: typeof fetch;
  close(): Promise<void>;
}

/**
 * The fetch of every call to the control plane, through the proxy `env` gives for
 * `serverUrl` (if any): the agent's and, through `sluice engine`, the engine's.
 */
export function createControlPlaneFetch(serverUrl: string, env: ProxyEnv): ControlPlaneFetch {
  const proxyUrl = proxyUrlFor(serverUrl, env);
  const dispatcher =
    proxyUrl === undefined ? new Agent(TIMEOUTS) : new ProxyAgent({ uri: proxyUrl, ...TIMEOUTS });
  const doFetch = ((input: URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
  return { fetch: doFetch, close: () => dispatcher.close() };
}

export function createControlPlaneClient(
  options: ControlPlaneClientOptions,
): ControlPlaneConnection {
  const connection = createControlPlaneFetch(options.serverUrl, options.env ?? process.env);
  const { fetch } = connection;
  const client = createClient({ baseUrl: options.serverUrl, token: options.token, fetch });
  return { client, close: () => connection.close() };
}

/** Failed calls to the control plane by kind: an error category, or `network` for the rest. */
export class ApiErrorTally {
  readonly #counts = new Map<string, number>();

  add(err: unknown): void {
    const kind = isSluiceError(err) ? err.category : 'network';
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
  }

  counts(): ReadonlyMap<string, number> {
    return this.#counts;
  }
}

/**
 * `client` with each failed call counted in `tally`, except calls their own signal aborted (a
 * shutdown, a long-poll given up): those are not the control plane's failures.
 */
export function countingErrors(client: SluiceClient, tally: ApiErrorTally): SluiceClient {
  const counted = <T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> =>
    work.catch((err: unknown) => {
      if (signal?.aborted !== true) tally.add(err);
      throw err;
    });
  return {
    call: (name, input) => counted(client.call(name, input), input?.signal),
    raw: (name, input) => counted(client.raw(name, input), input?.signal),
    withToken: (token) => countingErrors(client.withToken(token), tally),
  };
}
