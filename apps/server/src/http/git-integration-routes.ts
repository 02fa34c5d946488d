/**
 * `/api/v1/git-integrations`: the account's git credentials, which git-clone steps and
 * triggers name.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerGitIntegrationRoutes(
  app: FastifyInstance,
  s: Services,
  auth: Authenticate,
): void {
  registerRoute(app, routes.listGitIntegrations, auth, async ({ principal }) => ({
    items: await s.gitIntegrations.list(principal.accountId),
  }));
  registerRoute(app, routes.createGitIntegration, auth, ({ principal, body }) =>
    s.gitIntegrations.create(principal.accountId, body),
  );
  registerRoute(app, routes.getGitIntegration, auth, ({ principal, params }) =>
    s.gitIntegrations.get(principal.accountId, params.name),
  );
  registerRoute(app, routes.updateGitIntegration, auth, ({ principal, params, body }) =>
    s.gitIntegrations.update(principal.accountId, params.name, body),
  );
  registerRoute(
    app,
    routes.deleteGitIntegration,
    auth,
    async ({ principal, params }) =>
      void (await s.gitIntegrations.delete(principal.accountId, params.name)),
  );
}
