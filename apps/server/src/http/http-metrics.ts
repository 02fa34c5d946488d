/**
 * Times every HTTP request into the server's metrics, labelled by method, the route's template
 * (`/api/v1/builds/:buildId`, never the URL, so the number of series stays bounded) and status
 * class; requests no route matched share the route label `unmatched`.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import type { ServerMetrics } from '../observability/server-metrics.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Add before the routes are registered, so every route gets the hook. */
export function instrumentHttp(app: FastifyInstance, metrics: ServerMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(
      {
        method: METHODS.has(request.method) ? request.method : 'OTHER',
        route: request.routeOptions.url ?? 'unmatched',
        statusClass: `${Math.floor(reply.statusCode / 100)}xx`,
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
