/**
 * `/api/engine/v1`, for one build's engine. An engine token sees only its own build: the build
 * comes from the token, never from the request.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { disconnectSignal, registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerEngineRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
  registerRoute(app, routes.engineBuild, auth, ({ principal }) =>
    s.engine.build(principal.buildId ?? ''),
  );
  registerRoute(app, routes.engineDefinition, auth, ({ principal, body }) =>
    s.engine.definition(principal.buildId ?? '', body),
  );
  registerRoute(
    app,
    routes.engineEvents,
    auth,
    async ({ principal, body }) =>
      void (await s.engine.events(principal.buildId ?? '', body.events)),
  );
  registerRoute(app, routes.engineLog, auth, async ({ principal, body }) => {
    await s.logs.append(principal.buildId ?? '', body);
    s.ctx.metrics.logLinesReceived(body.lines.length);
  });
  registerRoute(
    app,
    routes.engineHeartbeat,
    auth,
    async ({ principal }) => void (await s.engine.heartbeat(principal.buildId ?? '')),
  );
  registerRoute(app, routes.engineControl, auth, async ({ principal, query, request }) => ({
    messages: await s.engine.control(
      principal.buildId ?? '',
      query.after,
      query.wait * 1000,
      disconnectSignal(request),
    ),
  }));
}
