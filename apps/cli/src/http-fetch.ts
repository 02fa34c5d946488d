/**
 * The CLI's `fetch` for the API client, on node:http(s) instead of the global fetch. A person
 * waits for every `sluice get builds`: the global fetch loads undici on first use (about 45 ms
 * here) and its pooled keep-alive socket holds the process open for another 70 ms after the
 * answer. node:http loads in a few milliseconds, and its keep-alive agent unrefs idle sockets,
 * so the process ends with its work. It implements what the client and the log follower use:
 * `ok`, `status`, `statusText`, `headers.get`, `json()`, `text()` and `body` as an async
 * iterable of bytes (a Server-Sent Events stream is read as it arrives).
 * @module
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

const agents = {
  'http:': new HttpAgent({ keepAlive: true }),
  'https:': new HttpsAgent({ keepAlive: true }),
};

export function httpFetch(
  input: URL | string | Request,
  init: RequestInit = {},
): Promise<Response> {
  // Not `instanceof Request`: touching the global loads undici, which this module is here to avoid.
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
    req.end(body);
  });
}

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
