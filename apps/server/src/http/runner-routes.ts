/**
 * `/api/agent/v1` (agent tokens: only the agent's own runtimes) and `/api/engine/v1` (engine
 * tokens: only their own build). The subject comes from the token, never from the request.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { disconnectSignal, registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerRunnerRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
  registerRoute(app, routes.pollTasks, auth, async ({ principal, query, request }) => ({
    tasks: await s.tasks.poll({
      agentId: principal.agentId ?? '',
      accountId: principal.accountId,
      waitMs: query.wait * 1000,
      max: query.max,
      signal: disconnectSignal(request),
    }),
  }));
  registerRoute(
    app,
    routes.reportTaskStatus,
    auth,
    async ({ principal, params, body }) =>
      void (await s.tasks.report(principal.agentId ?? '', params.taskId, body)),
  );
  registerRoute(
    app,
    routes.agentHeartbeat,
    auth,
    async ({ principal, body }) =>
      void (await s.agents.heartbeat(principal.agentId ?? '', body.health, body.version)),
  );

  registerRoute(app, routes.agentRuntimes, auth, async ({ principal }) => ({
    runtimes: await s.agents.runtimesOf(principal.agentId ?? ''),
  }));
  registerRoute(app, routes.agentBuildStates, auth, async ({ principal, body }) => ({
    builds: await s.agents.buildStates(principal.agentId ?? '', body.buildIds),
  }));

  registerRoute(app, routes.agentInfrastructureError, auth, async ({ principal, params, body }) =>
    s.infrastructureErrors.report(
      await s.agents.servedBy(principal.agentId ?? ''),
      params.buildId,
      body,
    ),
  );

  registerRoute(app, routes.dindCertificate, auth, async ({ principal, params }) => {
    const accountId = await s.agents.assertServes(principal.agentId ?? '', params.name);
    return s.certificates.dindServerCertificate(accountId, params.name);
  });

  registerRoute(app, routes.engineBuild, auth, ({ principal }) =>
    s.engine.build(principal.buildId ?? ''),
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
