/**
 * The probes: `/healthz` answers 200 while the process serves requests (liveness: restarting
 * the server would not bring a lost database back), `/readyz` 200 when the database answers and
 * 503 with the reason while it does not or while the server shuts down (readiness: take it out
 * of the Service until then). `/api/health` stays as it was, for clients that use it.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { ReadinessCheck } from '../observability/readiness.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerHealthRoutes(
  app: FastifyInstance,
  readiness: ReadinessCheck,
  auth: Authenticate,
): void {
  registerRoute(app, routes.liveness, auth, () => Promise.resolve({ ok: true as const }));
  registerRoute(app, routes.readiness, auth, async ({ reply }) => {
    const result = await readiness.check();
    if (result.ready) return result;
    // Not an error of the request: the same body, with the status probes act on.
    void reply.status(503).header('cache-control', 'no-store').send(result);
    return undefined;
  });
}
