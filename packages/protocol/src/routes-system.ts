/**
 * The probes, outside the versioned APIs and without a token: `/api/health` (the database
 * answers, and its kind), `/healthz` (liveness) and `/readyz` (readiness: the database answers). Prometheus `/metrics` is not among them: the
 * server serves it on a listener of its own (docs/metrics.md).
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Liveness, Readiness } from './schemas/health.js';

export const systemRoutes = {
  health: route({
    method: 'GET',
    path: '/api/health',
    scope: 'public',
    tag: 'system',
    summary:
      'Liveness and database reachability: 200 when the database answers a quick query, 503 with `ok: false` and the reason while it does not (as `/readyz`)',
    response: z.object({
      ok: z.boolean(),
      database: z.enum(['pglite', 'postgres']),
      reason: z.string().optional().describe('Why the database is not reachable, when it is not'),
    }),
  }),
  liveness: route({
    method: 'GET',
    path: '/healthz',
    scope: 'public',
    tag: 'system',
    summary: 'Liveness: 200 while the process serves requests; the database is not asked',
    response: Liveness,
  }),
  readiness: route({
    method: 'GET',
    path: '/readyz',
    scope: 'public',
    tag: 'system',
    summary:
      'Readiness: 200 when the database answers; 503 with the same body and the reason while it does not or while the server shuts down',
    response: Readiness,
  }),
};
