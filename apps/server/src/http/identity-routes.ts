/**
 * `/api/v1` for who calls: the account, the caller and their API tokens (user tokens).
 * @module
 */
import { routes } from '@sluice/protocol';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
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
  registerRoute(app, routes.listTokens, auth, async ({ principal }) => ({
    items: await s.identity.listTokens(principal),
  }));
  registerRoute(app, routes.createToken, auth, ({ principal, body }) => {
    const expiresAt =
      body.expiresInDays === undefined
        ? undefined
        : new Date(s.ctx.clock() + body.expiresInDays * 86_400_000);
    return s.identity.issueToken({
      accountId: principal.accountId,
      kind: 'user',
      subjectId: principal.userId ?? '',
      name: body.name,
      expiresAt,
    });
  });
  registerRoute(
    app,
    routes.revokeToken,
    auth,
    async ({ principal, params }) => void (await s.identity.revokeToken(principal, params.tokenId)),
  );
}
