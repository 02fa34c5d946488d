/**
 * `/api/v1` for runtime environments and the agents that serve them (user tokens, the caller's
 * account).
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerRuntimeRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
  registerRoute(app, routes.listRuntimeEnvironments, auth, async ({ principal }) => ({
    items: await s.runtimes.list(principal.accountId),
  }));
  registerRoute(app, routes.createRuntimeEnvironment, auth, ({ principal, body }) =>
    s.runtimes.create(principal.accountId, body, principal.userId),
  );
  registerRoute(app, routes.getRuntimeEnvironment, auth, ({ principal, params, query }) =>
    s.runtimes.get(principal.accountId, params.name, {
      version: query.version,
      extend: query.extend === 'true',
    }),
  );
  registerRoute(app, routes.patchRuntimeEnvironment, auth, ({ principal, params, body }) =>
    s.runtimes.patch(
      principal.accountId,
      params.name,
      body.patch,
      body.description,
      principal.userId,
    ),
  );
  registerRoute(app, routes.runtimeEnvironmentHistory, auth, async ({ principal, params }) => ({
    items: await s.runtimes.history(principal.accountId, params.name),
  }));
  registerRoute(app, routes.setDefaultRuntimeEnvironment, auth, ({ principal, params }) =>
    s.runtimes.setDefault(principal.accountId, params.name),
  );
  registerRoute(
    app,
    routes.deleteRuntimeEnvironment,
    auth,
    async ({ principal, params }) =>
      void (await s.runtimes.delete(principal.accountId, params.name)),
  );

  registerRoute(app, routes.listAgents, auth, async ({ principal }) => ({
    items: await s.agents.list(principal.accountId),
  }));
  registerRoute(app, routes.createAgent, auth, ({ principal, body }) =>
    s.agents.create(principal.accountId, body),
  );
  registerRoute(app, routes.updateAgent, auth, ({ principal, params, body }) =>
    s.agents.update(principal.accountId, params.agentId, body),
  );
  registerRoute(
    app,
    routes.deleteAgent,
    auth,
    async ({ principal, params }) =>
      void (await s.agents.delete(principal.accountId, params.agentId)),
  );
}
