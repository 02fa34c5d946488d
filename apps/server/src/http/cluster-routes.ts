/**
 * `/api/v1/clusters`: the Kubernetes clusters builds deploy to, by name.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerClusterRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
  registerRoute(app, routes.listClusters, auth, async ({ principal }) => ({
    items: await s.clusters.list(principal.accountId),
  }));
  registerRoute(app, routes.createCluster, auth, ({ principal, body }) =>
    s.clusters.create(principal.accountId, body),
  );
  registerRoute(app, routes.getCluster, auth, ({ principal, params }) =>
    s.clusters.get(principal.accountId, params.name),
  );
  registerRoute(
    app,
    routes.deleteCluster,
    auth,
    async ({ principal, params }) =>
      void (await s.clusters.delete(principal.accountId, params.name)),
  );
}
