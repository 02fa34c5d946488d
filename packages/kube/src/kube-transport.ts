/**
 * HTTP to one API server on Node's own `http`/`https`: one keep-alive connection pool per
 * client (client-node 1.4 builds a new agent, so a new TLS connection, for every request),
 * the cluster CA, client certificate and skip-verify of the kubeconfig, and a proxy when there
 * is one: an `https://` API server through an HTTP CONNECT tunnel (the proxy itself reached
 * over http or https), an `http://` one by absolute-URI requests, as Go's transport does. An
 * answer outside 2xx is a `KubeHttpError` carrying the status and the body (a Kubernetes
 * `Status`), which `classifyKubeError` reads; no answer is the socket's own error.
 * @module
 */
import { Buffer } from 'node:buffer';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AgentOptions as HttpsAgentOptions } from 'node:https';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import type { Duplex } from 'node:stream';

/** An answer of the API server outside 2xx: `code` is the HTTP status, `body` its text. */
export class KubeHttpError extends Error {
  readonly code: number;
  readonly body: string;
  constructor(code: number, body: string) {
    super(`HTTP ${code}`);
    this.name = 'KubeHttpError';
    this.code = code;
    this.body = body;
  }
}

export interface KubeTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized: boolean;
  servername?: string;
}

export interface KubeTransportOptions {
  server: string;
  tls: KubeTls;
  proxyUrl?: string;
  /** Connections kept to the API server at most; further requests queue for one. */
  maxSockets: number;
  /** An agent made elsewhere (a SOCKS proxy's, by client-node), instead of our own. */
  agent?: () => Promise<HttpAgent>;
}

export interface KubeHttpRequest {
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  /** Path and query, e.g. `/api/v1/namespaces/ci/pods?labelSelector=a%3Db`. */
  path: string;
  headers: OutgoingHttpHeaders;
  body?: string;
  signal?: AbortSignal;
}

export interface KubeTransport {
  /**
   * Resolves to the body of a 2xx answer; with `onChunk`, a 2xx body goes to it as it arrives
   * (a watch) and the promise resolves to '' when the answer ends.
   * @throws KubeHttpError, or the socket's error.
   */
  send(request: KubeHttpRequest, onChunk?: (chunk: string) => void): Promise<string>;
  /** Swaps the client certificate (exec credential plugins may return one). */
  setClientCertificate(cert: Buffer | undefined, key: Buffer | undefined): void;
  close(): void;
}

type Agent = HttpAgent | HttpsAgent;

export function createKubeTransport(options: KubeTransportOptions): KubeTransport {
  const server = new URL(options.server);
  const custom = options.agent;
  const proxy =
    options.proxyUrl === undefined || custom !== undefined ? undefined : new URL(options.proxyUrl);
  let tls = options.tls;
  let agent: Agent | Promise<Agent> =
    custom === undefined ? makeAgent(server, proxy, tls, options.maxSockets) : custom();
  return {
    send: async (request, onChunk) => send(server, proxy, await agent, request, onChunk),
    setClientCertificate(cert, key) {
      if (custom !== undefined || (sameBytes(cert, tls.cert) && sameBytes(key, tls.key))) return;
      tls = { ...tls, cert, key };
      const old = agent;
      agent = makeAgent(server, proxy, tls, options.maxSockets);
      void Promise.resolve(old).then((a) => a.destroy());
    },
    close: () => void Promise.resolve(agent).then((a) => a.destroy()),
  };
}

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

function makeAgent(server: URL, proxy: URL | undefined, tls: KubeTls, maxSockets: number): Agent {
  const pool = { keepAlive: true, maxSockets, maxFreeSockets: Math.min(maxSockets, 16) };
  if (server.protocol === 'http:') return new HttpAgent(pool);
  const agentOptions: HttpsAgentOptions = { ...pool, ...tls };
  return proxy === undefined ? new HttpsAgent(agentOptions) : new TunnelAgent(proxy, agentOptions);
}

/** An https agent whose connections are CONNECT tunnels through `proxy`. */
class TunnelAgent extends HttpsAgent {
  readonly #proxy: URL;

  constructor(proxy: URL, options: HttpsAgentOptions) {
    super(options);
    this.#proxy = proxy;
  }

  // Node's Agent waits for the callback when this returns nothing.
  override createConnection(
    requestOptions: RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): undefined {
    const options = requestOptions as ConnectionOptions & { host?: string; port?: number };
    const done = callback ?? (() => undefined);
    // On failure Node's Agent reads only the error.
    const fail = done as (err: Error) => void;
    const target = `${hostForUrl(options.host ?? 'localhost')}:${options.port ?? 443}`;
    const request = (this.#proxy.protocol === 'https:' ? httpsRequest : httpRequest)({
      host: this.#proxy.hostname.replace(/^\[|\]$/g, ''),
      port: this.#proxy.port || (this.#proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: target,
      headers: { host: target, ...proxyAuthorization(this.#proxy) },
      agent: false,
    });
    request.once('connect', (response: IncomingMessage, socket: Socket) => {
      if (response.statusCode !== 200) {
        socket.destroy();
        fail(
          Object.assign(
            new Error(
              `the proxy ${this.#proxy.host} answered CONNECT ${target} with ${response.statusCode}`,
            ),
            { code: 'EPROXY' },
          ),
        );
        return;
      }
      done(null, tlsConnect({ ...options, socket }));
    });
    request.once('error', fail);
    request.end();
    return undefined;
  }
}

function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function proxyAuthorization(proxy: URL): Record<string, string> {
  if (proxy.username === '') return {};
  const user = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(user).toString('base64')}` };
}

function send(
  server: URL,
  proxy: URL | undefined,
  agent: Agent,
  request: KubeHttpRequest,
  onChunk?: (chunk: string) => void,
): Promise<string> {
  const headers: OutgoingHttpHeaders = { ...request.headers };
  if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
  const basePath = server.pathname.replace(/\/+$/, '');
  // A plain-http API server behind a proxy: the proxy gets the absolute URI.
  const viaProxy = proxy !== undefined && server.protocol === 'http:';
  const target = viaProxy ? proxy : server;
  const path = viaProxy
    ? `${server.origin}${basePath}${request.path}`
    : `${basePath}${request.path}`;
  if (viaProxy) Object.assign(headers, proxyAuthorization(proxy));
  const requestFn = target.protocol === 'https:' && !viaProxy ? httpsRequest : httpRequest;
  // A watch is stopped by destroying its answer, not its request: an answer already complete
  // gave its socket back to the pool, where the request's own signal would destroy it under
  // the next request.
  const streamSignal = onChunk === undefined ? undefined : request.signal;
  const requestSignal = onChunk === undefined ? request.signal : undefined;
  return new Promise((resolve, reject) => {
    let answer: IncomingMessage | undefined;
    const stop = () => {
      const err = Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
      if (answer === undefined) outgoing.destroy(err);
      else answer.destroy(err);
    };
    const settle =
      (fn: (value: never) => void) =>
      (value: unknown): void => {
        streamSignal?.removeEventListener('abort', stop);
        fn(value as never);
      };
    const done = settle(resolve);
    const fail = settle(reject);
    const outgoing = requestFn(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port || (target.protocol === 'https:' ? 443 : 80),
        method: request.method,
        path,
        headers,
        agent,
        ...(requestSignal === undefined ? {} : { signal: requestSignal }),
      },
      (response) => {
        answer = response;
        const chunks: Buffer[] = [];
        const status = response.statusCode ?? 0;
        const streaming = onChunk !== undefined && status >= 200 && status < 300;
        if (streaming) response.setEncoding('utf8');
        response.on('data', (chunk: Buffer | string) => {
          if (streaming) onChunk(String(chunk));
          else chunks.push(chunk as Buffer);
        });
        response.on('error', fail);
        // A watch cut off mid-answer (the server went, the signal aborted) ends without 'end'.
        response.once('close', () => {
          if (!response.complete) fail(new Error('the answer was cut off'));
        });
        response.once('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (status >= 200 && status < 300) done(text);
          else fail(new KubeHttpError(status, text));
        });
      },
    );
    outgoing.on('error', fail);
    if (streamSignal?.aborted) stop();
    else streamSignal?.addEventListener('abort', stop, { once: true });
    outgoing.end(request.body);
  });
}
