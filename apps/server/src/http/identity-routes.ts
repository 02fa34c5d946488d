/**
 * `/api/v1` for who calls: the account, the caller and their API tokens (user tokens; an
 * admin's for another user too).
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { noteAuditDetail } from './audit-hook.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';

export function registerIdentityRoutes(
  app: FastifyInstance,
  s: Services,
  auth: Authenticate,
): void {
  registerRoute(app, routes.me, auth, ({ principal }) => s.identity.me(principal));
  registerRoute(app, routes.updateAccount, auth, ({ principal, body }) =>
    s.identity.updateAccount(principal.accountId, body),
  );
  registerRoute(app, routes.listTokens, auth, async ({ principal, query }) => ({
    items: await s.identity.listTokens(principal, query.user),
  }));
  registerRoute(app, routes.createToken, auth, async ({ principal, body, request }) => {
    const created = await s.identity.createUserToken(principal, body);
    // The audit log names the new token by id, never by value.
    noteAuditDetail(request, 'token', created.info.id);
    return created;
  });
  registerRoute(
    app,
    routes.revokeToken,
    auth,
    async ({ principal, params }) => void (await s.identity.revokeToken(principal, params.tokenId)),
  );
}
