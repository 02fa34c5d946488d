/**
 * `/api/v1/registries` and `/api/v1/step-types`: account settings a build's engine uses.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerSettingsRoutes(
  app: FastifyInstance,
  s: Services,
  auth: Authenticate,
): void {
  registerRoute(app, routes.listRegistries, auth, async ({ principal }) => ({
    items: await s.registries.list(principal.accountId),
  }));
  registerRoute(app, routes.putRegistry, auth, ({ principal, params, body }) =>
    s.registries.put(principal.accountId, params.name, body),
  );
  registerRoute(
    app,
    routes.deleteRegistry,
    auth,
    async ({ principal, params }) =>
      void (await s.registries.delete(principal.accountId, params.name)),
  );

  registerRoute(app, routes.listStepTypes, auth, async ({ principal }) => ({
    items: await s.stepTypes.list(principal.accountId),
  }));
  registerRoute(app, routes.getStepType, auth, async ({ principal, params }) => ({
    items: await s.stepTypes.get(principal.accountId, params.name),
  }));
  registerRoute(app, routes.putStepType, auth, ({ principal, body }) =>
    s.stepTypes.put(principal.accountId, body.yaml, principal.userId),
  );
  registerRoute(
    app,
    routes.deleteStepType,
    auth,
    async ({ principal, params }) =>
      void (await s.stepTypes.delete(principal.accountId, params.name, params.version)),
  );
}
