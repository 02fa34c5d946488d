/**
 * `/api/agent/v1`, for runner agents. An agent token sees only its own runtimes: the agent
 * comes from the token, never from the request.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { disconnectSignal, registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerAgentRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
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
    s.infrastructureRetries.report(
      await s.agents.servedBy(principal.agentId ?? ''),
      params.buildId,
      body,
    ),
  );

  registerRoute(
    app,
    routes.agentBuildCache,
    auth,
    async ({ principal, params, body }) =>
      void (await s.builds.recordCache(
        await s.agents.servedBy(principal.agentId ?? ''),
        params.buildId,
        body,
      )),
  );

  registerRoute(app, routes.dindCertificate, auth, async ({ principal, params }) => {
    const accountId = await s.agents.assertServes(principal.agentId ?? '', params.name);
    return s.certificates.dindServerCertificate(accountId, params.name);
  });
}
