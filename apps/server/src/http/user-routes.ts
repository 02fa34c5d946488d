/**
 * `/api/v1` for the account's users (roles and project grants) and the audit log; every route
 * is for administrators (docs/access.md).
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerUserRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
  registerRoute(app, routes.listUsers, auth, async ({ principal }) => ({
    items: await s.users.list(principal.accountId),
  }));
  registerRoute(app, routes.createUser, auth, ({ principal, body }) =>
    s.users.create(principal.accountId, body.name, body),
  );
  registerRoute(app, routes.updateUser, auth, ({ principal, params, body }) =>
    s.users.update(principal.accountId, params.name, body),
  );
  registerRoute(
    app,
    routes.deleteUser,
    auth,
    async ({ principal, params }) => void (await s.users.delete(principal.accountId, params.name)),
  );
  registerRoute(app, routes.listAudit, auth, ({ principal, query }) =>
    s.audit.list({ accountId: principal.accountId, ...query }),
  );
}
