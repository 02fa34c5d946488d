/**
 * The probes: `/healthz` answers 200 while the process serves requests (liveness: restarting
 * the server would not bring a lost database back), `/readyz` 200 when the database answers and
 * 503 with the reason while it does not or while the server shuts down (readiness: take it out
 * of the Service until then). `/api/health` (for clients and the CLI) is liveness and
 * readiness in one: 200 `ok: true` when the database answers, 503 `ok: false` with the reason
 * while it does not, from the same probe as `/readyz` (one quick query with a short timeout,
 * shared by the checks that overlap).
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
  registerRoute(app, routes.health, auth, async ({ reply }) => {
    const result = await readiness.check();
    const body = { ok: result.ready, database: result.database.kind };
    if (result.ready) return body;
    void reply.status(503).send({ ...body, reason: result.reason });
    return undefined;
  });
  registerRoute(app, routes.liveness, auth, () => Promise.resolve({ ok: true as const }));
  registerRoute(app, routes.readiness, auth, async ({ reply }) => {
    const result = await readiness.check();
    if (result.ready) return result;
    // Not an error of the request: the same body, with the status probes act on.
    void reply.status(503).header('cache-control', 'no-store').send(result);
    return undefined;
  });
}
