/**
 * What holds for every request body, whatever its route: it must arrive whole within a
 * deadline (a sender that announces megabytes and trickles them, or stops, is answered 408
 * `SLUICE_REQUEST_BODY_TIMEOUT` and its connection closed, instead of holding memory and a
 * socket without end), and one over its route's limit (`BODY_LIMITS` of `@sluice/protocol`) is
 * answered 413 `SLUICE_REQUEST_TOO_LARGE` naming the limit, before it is read when its length
 * is announced.
 * @module
 */
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { InputError } from '@sluice/errors';
import type { FastifyRequest, preParsingHookHandler } from 'fastify';

/** True when the request carries a body (announced, or chunked). */
export function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}

/**
 * A `preParsing` hook: the body is read through a stream that fails with
 * `SLUICE_REQUEST_BODY_TIMEOUT` (408) when it has not ended `timeoutMs` after the headers came.
 */
export function bodyDeadline(timeoutMs: number): preParsingHookHandler {
  return (request, reply, payload, done) => {
    if (!hasBody(request)) {
      done(null, payload);
      return;
    }
    const body = new PassThrough();
    let received = 0;
    const timer = setTimeout(() => {
      payload.unpipe(body);
      body.destroy(bodyTimeout(request, received, timeoutMs));
    }, timeoutMs);
    const stop = () => clearTimeout(timer);
    payload.on('data', (chunk: Buffer) => (received += chunk.length));
    payload.once('end', stop);
    payload.once('close', stop);
    // Answered without the rest of the body (413 from its announced length, an unknown webhook).
    reply.raw.once('close', stop);
    payload.pipe(body);
    done(null, body as Readable & typeof payload);
  };
}

function bodyTimeout(request: FastifyRequest, received: number, timeoutMs: number): InputError {
  const announced = request.headers['content-length'];
  const of = announced === undefined ? '' : ` of the ${formatBytes(Number(announced))} announced`;
  return new InputError(
    'SLUICE_REQUEST_BODY_TIMEOUT',
    `The request body did not arrive within ${timeoutMs / 1000} s: ${formatBytes(received)}${of} came`,
    {
      details: { timedOut: true, receivedBytes: received, timeoutMs },
      hint: 'Send the whole body at once; the deadline is SLUICE_REQUEST_BODY_TIMEOUT_MS',
    },
  );
}

/**
 * Fastify's "body too large" in the API's words: the limit of the route and what to do; any
 * other error as it came.
 */
export function translateBodyError(err: unknown, request: FastifyRequest): unknown {
  if ((err as { code?: unknown } | null)?.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return err;
  const limit = request.routeOptions.bodyLimit;
  const route = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`;
  return new InputError(
    'SLUICE_REQUEST_TOO_LARGE',
    `The request body is larger than ${formatBytes(limit)}, the most ${route} accepts`,
    {
      cause: err,
      details: { tooLarge: true, limit },
      hint: 'docs/limits.md lists the limit of each route',
    },
  );
}

/** `65,536 bytes (64 KiB)`: exact, and readable. */
export function formatBytes(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} bytes`;
  if (bytes < 1024) return exact;
  const [unit, size] = bytes < 1024 * 1024 ? ['KiB', 1024] : ['MiB', 1024 * 1024];
  const amount = Math.round((bytes / size) * 100) / 100;
  return `${exact} (${amount} ${unit})`;
}
