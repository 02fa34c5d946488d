/**
 * A `fetch` for the API client on node:http(s) instead of undici. The CLI's quick commands use
 * it (`httpFetch`): the global fetch loads undici on first use (about 45 ms here) and its pooled
 * keep-alive socket holds the process open for another 70 ms after the answer, while node:http
 * loads in a few milliseconds and its keep-alive agent unrefs idle sockets, so the process ends
 * with its work. The agent uses it (`createHttpFetch`) for a control plane it reaches without a
 * proxy: undici's 95 modules are about 3.4 MiB of the agent's heap, and its pool opens a
 * connection for every concurrent report where this one keeps at most `maxSockets`. It
 * implements what the client and the log follower use: `ok`, `status`, `statusText`,
 * `headers.get`, `json()`, `text()` and `body` as an async iterable of bytes (a Server-Sent
 * Events stream is read as it arrives).
 * @module
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpFetchOptions {
  /** Connections kept to each server at most; further requests queue for one. */
  maxSockets?: number;
  /** A request whose socket stays silent this long fails (none by default). */
  idleTimeoutMs?: number;
}

/** A `fetch` and its connection pool. */
export interface HttpFetch {
  fetch: typeof fetch;
  /** Closes the pooled connections. */
  close(): Promise<void>;
}

export function createHttpFetch(options: HttpFetchOptions = {}): HttpFetch {
  const pool = { keepAlive: true, maxSockets: options.maxSockets ?? Infinity };
  const agents = { 'http:': new HttpAgent(pool), 'https:': new HttpsAgent(pool) };
  const doFetch = (input: URL | string | Request, init: RequestInit = {}): Promise<Response> => {
    // Not `instanceof Request`: touching the global loads undici, which this module avoids.
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const secure = url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    const body = typeof init.body === 'string' ? init.body : undefined;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          method: init.method ?? 'GET',
          headers: {
            ...(init.headers as Record<string, string> | undefined),
            ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
          },
          agent: agents[secure ? 'https:' : 'http:'],
          signal: init.signal ?? undefined,
        },
        (res) => resolve(toResponse(res)),
      );
      req.on('error', (err) => reject(new TypeError('fetch failed', { cause: err })));
      if (options.idleTimeoutMs !== undefined)
        req.setTimeout(options.idleTimeoutMs, () =>
          req.destroy(new Error(`no answer in ${options.idleTimeoutMs} ms from ${url.host}`)),
        );
      req.end(body);
    });
  };
  return {
    fetch: doFetch,
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
      return Promise.resolve();
    },
  };
}

const shared = createHttpFetch();

/** One process-wide pool, for commands that end with their work. */
export const httpFetch: typeof fetch = shared.fetch;

function toResponse(res: IncomingMessage): Response {
  const status = res.statusCode ?? 0;
  // Nobody reads a body that cannot be there; an unread response would hold its socket.
  if (status === 204 || status === 304) res.resume();
  const text = async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const response = {
    ok: status >= 200 && status < 300,
    status,
    statusText: res.statusMessage ?? '',
    headers: { get: (name: string) => headerText(res.headers[name.toLowerCase()]) },
    body: res,
    text,
    json: async () => JSON.parse(await text()) as unknown,
  };
  // The subset above is all the API client and the log follower read.
  return response as unknown as Response;
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
