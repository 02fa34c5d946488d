/**
 * The agent's only connection out: the typed client for the control plane, with HTTPS_PROXY,
 * HTTP_PROXY and NO_PROXY (upper case first, then lower case) honoured as a corporate network
 * expects; Node 20's own fetch ignores them. The agent talks to one server, so whether to use a
 * proxy is decided once, by the same rule as its Kubernetes connections (`proxyUrlFor`, Go's:
 * the proxy of the URL's scheme, never for loopback, NO_PROXY with domains, addresses and CIDR
 * ranges). Through a proxy the calls go over undici's `ProxyAgent` (undici's
 * `EnvHttpProxyAgent`, which makes that decision per request, warns that it is experimental on
 * every start, and proxies loopback); without one, the agent's calls go over node:http
 * (`createHttpFetch`) and undici is never loaded: it is about 3.4 MiB of a resident agent's
 * heap (bench/agent).
 * @module
 */
import { proxyUrlFor } from '@sluice/kube/settings';
import type { ProxyEnv } from '@sluice/kube/settings';
import type * as Undici from 'undici';
import { isSluiceError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { createHttpFetch } from './http-fetch.js';

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
 * Connections the agent keeps to the control plane: enough for the long-poll, the heartbeat and
 * the reports of many builds at once (each takes a few milliseconds), few enough that 100
 * concurrent builds do not hold 100 sockets.
 */
const AGENT_CONNECTIONS = 16;

/**
 * The fetch of every call to the control plane over undici, through the proxy `env` gives for
 * `serverUrl` (if any): `sluice engine` hands it to the engine. undici is loaded on the first
 * call.
 */
export function createControlPlaneFetch(serverUrl: string, env: ProxyEnv): ControlPlaneFetch {
  return undiciFetch(proxyUrlFor(serverUrl, env));
}

let undiciModule: Promise<typeof Undici> | undefined;

function loadUndici(): Promise<typeof Undici> {
  // `default ?? module`: bundled (the engine image's esbuild bundle), a CommonJS module's
  // dynamic import is `{ default: exports }` without the named exports Node's loader adds.
  return (undiciModule ??= import('undici').then((module) => {
    const loaded = module as unknown as typeof Undici & { default?: typeof Undici };
    return loaded.default ?? loaded;
  }));
}

/**
 * Loads what `createControlPlaneFetch`'s first call would (undici), ahead of it: a standby
 * engine does it while it waits for its build.
 */
export async function preloadControlPlaneFetch(): Promise<void> {
  await loadUndici();
}

function undiciFetch(proxyUrl: string | undefined): ControlPlaneFetch {
  let pool: Promise<{ undici: typeof Undici; dispatcher: Undici.Dispatcher }> | undefined;
  const connect = () =>
    (pool ??= loadUndici().then((undici) => {
      return {
        undici,
        dispatcher:
          proxyUrl === undefined
            ? new undici.Agent(TIMEOUTS)
            : new undici.ProxyAgent({ uri: proxyUrl, ...TIMEOUTS }),
      };
    }));
  const doFetch = (async (input: URL, init?: RequestInit) => {
    const { undici, dispatcher } = await connect();
    return undici.fetch(input, { ...(init as object), dispatcher });
  }) as unknown as typeof fetch;
  return {
    fetch: doFetch,
    close: async () => {
      if (pool !== undefined) await (await pool).dispatcher.close();
    },
  };
}

/**
 * The agent's client: over undici through the proxy `env` gives for `serverUrl`, else over
 * node:http with at most `AGENT_CONNECTIONS` connections.
 */
export function createControlPlaneClient(
  options: ControlPlaneClientOptions,
): ControlPlaneConnection {
  const proxyUrl = proxyUrlFor(options.serverUrl, options.env ?? process.env);
  const connection =
    proxyUrl === undefined
      ? createHttpFetch({ maxSockets: AGENT_CONNECTIONS, idleTimeoutMs: TIMEOUTS.bodyTimeout })
      : undiciFetch(proxyUrl);
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
