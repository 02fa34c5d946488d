/**
 * The Fastify instance every route is registered on, with what holds for all of them: a random
 * request id on every request, returned as `x-request-id` and in every error body; the one
 * error handler; the error envelope for unknown routes and unreadable URLs; `Cache-Control:
 * no-store` on every answer under `/api` (tokens, and what only its caller may see); a deadline
 * for every request body (`request-body.ts`); and the text check of `request-text.ts` before any
 * handler runs.
 * @module
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMITS, routes } from '@sluice/protocol';
import type { Logger } from '@sluice/log';
import { createErrorHandler, REQUEST_ID_HEADER } from './error-handler.js';
import { bodyDeadline } from './request-body.js';
import { assertStorableText, sanitiseText } from './request-text.js';

/**
 * Routes whose body is the engine's report of what programs printed (log lines, step events
 * with reasons): its text is made storable rather than refused, so no line is ever lost.
 */
const SANITISED_BODIES = new Set([
  `POST ${routes.engineLog.path}`,
  `POST ${routes.engineEvents.path}`,
]);

export interface HttpAppOptions {
  /** A request body not received whole within this long is answered 408. */
  bodyTimeoutMs: number;
  /** Behind a trusted proxy: the client's address and scheme from X-Forwarded-For/-Proto. */
  trustProxy?: boolean;
}

export function createHttpApp(log: Logger, options: HttpAppOptions): FastifyInstance {
  const app = Fastify({
    logger: false,
    trustProxy: options.trustProxy === true,
    // Each route of `@sluice/protocol` sets its own (`registerRoute`); this is for the others.
    bodyLimit: BODY_LIMITS.default,
    genReqId: () => randomUUID(),
    // A URL that does not decode (e.g. `%E0%A4%A`) is answered before routing and hooks.
    frameworkErrors: badUrl,
  });
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    // Answers of the API hold tokens, secrets' names and builds' states: never kept by a cache.
    if (isApi(request.url)) void reply.header('cache-control', 'no-store');
    done();
  });
  app.addHook('preParsing', bodyDeadline(options.bodyTimeoutMs));
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      checkText(request);
      done();
    } catch (err) {
      done(err as Error);
    }
  });
  app.setErrorHandler(createErrorHandler(log));
  app.setNotFoundHandler(notFound);
  return app;
}

function checkText(request: FastifyRequest): void {
  const key = `${request.method} ${request.routeOptions.url ?? ''}`;
  const body: unknown = request.body;
  const jsonBody = typeof body === 'object' && body !== null && !Buffer.isBuffer(body);
  if (jsonBody && SANITISED_BODIES.has(key)) {
    // Annotations are what a pipeline's author wrote, not what a program printed: refused.
    if (key === `POST ${routes.engineEvents.path}`)
      assertStorableText({ body: { events: annotationEventsOf(body) } });
    request.body = sanitiseText(body);
  }
  assertStorableText({
    params: request.params,
    query: request.query,
    ...(jsonBody && !SANITISED_BODIES.has(key) ? { body } : {}),
  });
}

/** The `annotations` events of an events body, in their places (others as null), for their paths. */
function annotationEventsOf(body: object): unknown[] {
  const events = (body as { events?: unknown }).events;
  if (!Array.isArray(events)) return [];
  return events.map((event: unknown) =>
    typeof event === 'object' && event !== null && 'type' in event && event.type === 'annotations'
      ? event
      : null,
  );
}

function isApi(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

function badUrl(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (isApi(request.url)) void reply.header('cache-control', 'no-store');
  void reply
    .status(400)
    .header(REQUEST_ID_HEADER, request.id)
    .send({
      error: { code: 'SLUICE_HTTP_BAD_REQUEST', message: err.message, requestId: request.id },
    });
}

function notFound(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0] ?? request.url;
  void reply.status(404).send({
    error: {
      code: 'SLUICE_ROUTE_NOT_FOUND',
      message: `No route ${request.method} ${path}`,
      hint: 'See /api/openapi.json for the routes of this server',
      requestId: request.id,
    },
  });
}
