/**
 * The agent's and the engine's connection to the control plane: the typed client, with
 * HTTPS_PROXY, HTTP_PROXY and NO_PROXY (upper case first, then lower case) honoured as a
 * corporate network expects; Node 20's own fetch ignores them. The agent talks to one server, so whether to use a
 * proxy is decided once, by the same rule as its Kubernetes connections (`proxyUrlFor`, Go's:
 * the proxy of the URL's scheme, never for loopback, NO_PROXY with domains, addresses and CIDR
 * ranges). Through a proxy the calls go over undici's `ProxyAgent` (undici's
 * `EnvHttpProxyAgent`, which makes that decision per request, warns that it is experimental on
 * every start, and proxies loopback); without one, the agent's and the engine's calls go over
 * node:http (`createHttpFetch`) and undici is never loaded: it is about 3.4 MiB of a resident
 * agent's heap (bench/agent), and undici 6 loses a request whose new connection the other end
 * closes at once (a load balancer with no live backend): its promise never settles and holds
 * nothing open, so an engine waiting on it ended, exit 0, with nothing said (the two-replica
 * e2e). Through a proxy each call has a deadline that keeps the process alive and aborts such
 * a call, which frees undici's connection for the retry.
 * @module
 */
import type * as Undici from 'undici';
import { createClient } from '../client.js';
import type { SluiceClient } from '../client.js';
import { createHttpFetch } from './http-fetch.js';
import { proxyUrlFor } from './proxy-env.js';
import type { ProxyEnv } from './proxy-env.js';

export interface ControlPlaneClientOptions {
  serverUrl: string;
  token: string;
  /** The proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY): the process's, from its main. */
  env: ProxyEnv;
}

export interface ControlPlaneConnection {
  client: SluiceClient;
  /** Closes the pooled connections, so a server stopping after the agent is not held open. */
  close(): Promise<void>;
}

// A long-poll holds the response for up to a minute.
const TIMEOUTS = { headersTimeout: 120_000, bodyTimeout: 120_000 };
/** A call over undici without its response headers by then is aborted (see the module's note). */
const UNDICI_CALL_DEADLINE_MS = TIMEOUTS.headersTimeout + 10_000;

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
 * The fetch of every call to the control plane, through the proxy `env` gives for `serverUrl`
 * (over undici, loaded on the first call), else over node:http: `sluice engine` hands it to the
 * engine.
 */
export function createControlPlaneFetch(serverUrl: string, env: ProxyEnv): ControlPlaneFetch {
  const proxyUrl = proxyUrlFor(serverUrl, env);
  return proxyUrl === undefined
    ? createHttpFetch({ idleTimeoutMs: TIMEOUTS.bodyTimeout })
    : undiciFetch(proxyUrl);
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
 * Loads what `createControlPlaneFetch`'s first call would, ahead of it: undici when `env` sends
 * a server elsewhere through a proxy (a standby engine does it while it waits for its build,
 * whose server URL it does not know yet); node:http is loaded already.
 */
export async function preloadControlPlaneFetch(env: ProxyEnv): Promise<void> {
  const proxied = ['http', 'https'].some(
    (scheme) => proxyUrlFor(`${scheme}://control-plane.invalid`, env) !== undefined,
  );
  if (proxied) await loadUndici();
}

function undiciFetch(proxyUrl: string): ControlPlaneFetch {
  let pool: Promise<{ undici: typeof Undici; dispatcher: Undici.Dispatcher }> | undefined;
  const connect = () =>
    (pool ??= loadUndici().then((undici) => {
      return {
        undici,
        dispatcher: new undici.ProxyAgent({ uri: proxyUrl, ...TIMEOUTS }),
      };
    }));
  const doFetch = (async (input: URL, init?: RequestInit) => {
    const { undici, dispatcher } = await connect();
    const deadline = new AbortController();
    // Not unref'd: a lost request must not let the process end as if its work were done.
    const timer = setTimeout(
      () => deadline.abort(new Error(`no answer in ${UNDICI_CALL_DEADLINE_MS} ms`)),
      UNDICI_CALL_DEADLINE_MS,
    );
    const signals = [deadline.signal, ...(init?.signal ? [init.signal] : [])];
    try {
      return await undici.fetch(input, {
        ...(init as object),
        signal: AbortSignal.any(signals),
        dispatcher,
      });
    } finally {
      clearTimeout(timer);
    }
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
  const proxyUrl = proxyUrlFor(options.serverUrl, options.env);
  const connection =
    proxyUrl === undefined
      ? createHttpFetch({ maxSockets: AGENT_CONNECTIONS, idleTimeoutMs: TIMEOUTS.bodyTimeout })
      : undiciFetch(proxyUrl);
  const { fetch } = connection;
  const client = createClient({ baseUrl: options.serverUrl, token: options.token, fetch });
  return { client, close: () => connection.close() };
}
