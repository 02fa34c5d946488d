/**
 * Single sign-on from a browser, and `sluice auth login` (docs/access.md):
 * - `GET /auth/oidc/start?return=/path` sends the browser to the identity provider, with the
 *   flow's one-use key in a short-lived HttpOnly cookie; `GET /auth/oidc/callback` finishes it,
 *   starts the browser's session and goes back to `return` (or to the CLI's loopback);
 * - `GET /auth/cli?redirect_uri=…&code_challenge=…&state=…` is where `sluice auth login` sends
 *   the browser: signed in already, it goes straight to the CLI's loopback with a one-time code,
 *   else through the identity provider (or the password sign-in page) first;
 *   `POST /api/auth/cli/token` trades the code, `DELETE /api/auth/token` revokes the token sent.
 * A failure is a page naming the problem and what to do, never a bare 500; every sign-in and
 * refusal is in the audit log.
 * @module
 */
import { AuthenticationError, InputError } from '@sluice/errors';
import type { SluiceError } from '@sluice/errors';
import { routes } from '@sluice/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditDetails } from '../services/identity/audit-log.js';
import { SignInRefusal } from '../services/identity/oidc-sign-in.js';
import type { CliRequest, OidcSignIn } from '../services/identity/oidc-sign-in.js';
import { serverAccount } from '../services/identity/sso-users.js';
import type { Services } from '../services/services.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';
import { bearerToken, principalOf } from './auth.js';
import { sessionCookieOf, startSession } from './session-cookie.js';
import { sendSignInError } from './sign-in-page.js';
import { cliRequestOf, localPath } from './sign-in-requests.js';

const FLOW_COOKIE = 'sluice_oidc';
const FLOW_COOKIE_PATH = '/auth/oidc';

export function registerSignInRoutes(app: FastifyInstance, s: Services, auth: Authenticate): void {
  registerRoute(app, routes.cliLoginToken, auth, async ({ body, request }) => {
    const made = await s.cliLogin.exchange(body);
    await s.audit.record({
      accountId: made.user.accountId,
      actor: { userId: made.user.id, userName: made.user.name, tokenId: made.info.id },
      action: 'cliLogin',
      target: routes.cliLoginToken.path,
      source: request.ip,
      outcome: 'succeeded',
      status: routes.cliLoginToken.status,
      details: { user: made.user.name, scope: made.info.scope, token: made.info.id },
    });
    return { token: made.token, info: made.info };
  });
  const oidc = s.oidc;
  app.get('/auth/oidc/start', async (request, reply) => {
    if (oidc === undefined) return sendSignInError(reply, notConfigured());
    const query = request.query as Record<string, unknown>;
    return startOidc(s, oidc, request, reply, { returnTo: localPath(query.return) });
  });
  app.get('/auth/oidc/callback', async (request, reply) => {
    if (oidc === undefined) return sendSignInError(reply, notConfigured());
    void reply.header('set-cookie', flowCookie('', 0, oidc));
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    try {
      const signed = await oidc.finish({ query, flowKey: cookieOf(request, FLOW_COOKIE) });
      const { user } = signed;
      await s.audit.record({
        accountId: user.accountId,
        actor: { userId: user.id, userName: user.name, tokenId: null },
        action: 'signIn',
        target: '/auth/oidc/callback',
        source: request.ip,
        outcome: 'succeeded',
        status: 302,
        details: {
          user: user.name,
          role: user.role,
          previousRole: user.previousRole ?? null,
          groups: signed.groups,
          method: 'oidc',
          ...(user.keptLastAdmin === true ? { kept: "admin: the account's last admin" } : {}),
          ...(signed.cli === undefined ? {} : { for: 'sluice auth login' }),
        },
      });
      await startSession(
        s.sessions,
        { accountId: user.accountId, userId: user.id },
        { request, reply },
      );
      const next =
        signed.cli === undefined
          ? signed.returnTo
          : await s.cliLogin.redirectWithCode(user.id, signed.cli);
      return reply.redirect(next, 302);
    } catch (err) {
      if (!(err instanceof SignInRefusal)) throw err;
      await recordRefusal(s, request, err.error, err.who);
      return sendSignInError(reply, err.error);
    }
  });
  app.get('/auth/cli', async (request, reply) => {
    let cli: CliRequest;
    try {
      cli = cliRequestOf(request.query as Record<string, unknown>);
    } catch (err) {
      return sendSignInError(reply, err);
    }
    const userId = await sessionUser(s, request);
    if (userId !== undefined) return reply.redirect(await s.cliLogin.redirectWithCode(userId, cli));
    if (oidc !== undefined) return startOidc(s, oidc, request, reply, { returnTo: '/', cli });
    // The password sign-in page, coming back here once signed in.
    return reply.redirect(`/?return=${encodeURIComponent(request.url)}`);
  });
  registerRoute(app, routes.revokeCallerToken, auth, async ({ request }) => {
    const token = bearerToken(request.headers.authorization);
    const principal = principalOf(token === undefined ? undefined : await auth.lookup(token));
    if (principal?.kind !== 'user')
      throw new AuthenticationError('SLUICE_AUTH_REQUIRED', 'Send the user token to revoke', {
        hint: 'Send Authorization: Bearer <token>',
      });
    await s.identity.revokeToken(principal, principal.tokenId);
    await s.audit.record({
      accountId: principal.accountId,
      actor: {
        userId: principal.userId ?? null,
        userName: principal.userName ?? null,
        tokenId: principal.tokenId,
      },
      action: 'revokeCallerToken',
      target: routes.revokeCallerToken.path,
      source: request.ip,
      outcome: 'succeeded',
      status: routes.revokeCallerToken.status,
      details: { token: principal.tokenId },
    });
    return undefined;
  });
}

async function startOidc(
  s: Services,
  oidc: OidcSignIn,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { returnTo: string; cli?: CliRequest },
): Promise<FastifyReply> {
  try {
    const { url, flowKey } = await oidc.start(input);
    void reply.header('set-cookie', flowCookie(flowKey, 600, oidc));
    return reply.redirect(url, 302);
  } catch (err) {
    await recordRefusal(s, request, err as SluiceError, undefined);
    return sendSignInError(reply, err);
  }
}

/** A refused or failed sign-in, in the audit log of the server's account. */
async function recordRefusal(
  s: Services,
  request: FastifyRequest,
  error: SluiceError,
  who: { name: string; groups: string[] } | undefined,
): Promise<void> {
  const details: AuditDetails = { method: 'oidc', code: error.code };
  if (who !== undefined) Object.assign(details, { user: who.name, groups: who.groups });
  await s.audit.record({
    accountId: await serverAccount(s.ctx.database.db),
    actor: who === undefined ? null : { userId: null, userName: who.name, tokenId: null },
    action: 'signIn',
    target: request.url.split('?')[0] ?? request.url,
    source: request.ip,
    outcome:
      error.category === 'unavailable' || error.category === 'internal' ? 'failed' : 'denied',
    status: null,
    details,
  });
}

/** The user of the session cookie the request carries, if it is a live one. */
async function sessionUser(s: Services, request: FastifyRequest): Promise<string | undefined> {
  const value = sessionCookieOf(request);
  if (value === undefined) return undefined;
  const lookup = await s.sessions.lookup(value);
  return lookup.ok ? lookup.principal.userId : undefined;
}

function notConfigured(): InputError {
  return new InputError('SLUICE_OIDC_NOT_CONFIGURED', 'This server has no single sign-on', {
    hint: 'An administrator turns it on with SLUICE_OIDC_ISSUER and the other SLUICE_OIDC_* settings (docs/access.md)',
  });
}

/** The flow's cookie: HttpOnly, Lax (it must come back on the provider's redirect), short-lived. */
function flowCookie(value: string, maxAge: number, oidc: OidcSignIn): string {
  const secure = oidc.redirectUri.startsWith('https:') ? '; Secure' : '';
  return `${FLOW_COOKIE}=${value}; Path=${FLOW_COOKIE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name && rest.length > 0) return rest.join('=') || undefined;
  }
  return undefined;
}
