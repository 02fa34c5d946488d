/**
 * The web UI's sign-in (docs/access.md): `POST /api/auth/sign-in` checks a user name and
 * password (or an API token, exchanged once) and starts a session with its cookie;
 * `POST /api/auth/sign-out` ends it; `GET /api/v1/session` tells the UI its user and the CSRF
 * token to send with changes; `GET /api/auth/providers` what the sign-in page offers.
 * @module
 */
import { InputError, NotAllowedError } from '@sluice/errors';
import { routes } from '@sluice/protocol';
import type { AuthProviders, SessionInfo } from '@sluice/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services/services.js';
import type { SignedInUser } from '../services/identity/sign-in-service.js';
import { registerRoute } from './register-routes.js';
import type { Authenticate } from './register-routes.js';
import {
  clearSessionCookie,
  CSRF_HEADER,
  isOwnOrigin,
  sessionCookieOf,
  startSession,
} from './session-cookie.js';

export interface SessionRoutesOptions {
  /** What the sign-in page offers besides passwords (single sign-on, when configured). */
  providers?: () => AuthProviders['oidc'];
}

export function registerSessionRoutes(
  app: FastifyInstance,
  s: Services,
  auth: Authenticate,
  options: SessionRoutesOptions = {},
): void {
  const publicUrl = s.ctx.config.publicUrl;
  registerRoute(app, routes.authProviders, auth, () =>
    Promise.resolve({ password: true, oidc: options.providers?.() ?? null }),
  );
  registerRoute(app, routes.signIn, auth, async ({ body, request, reply }) => {
    requireOwnOrigin(request, publicUrl);
    let user: SignedInUser;
    if (body.token !== undefined) user = await s.signIn.withToken(body.token);
    else if (body.user !== undefined && body.password !== undefined) {
      const result = await s.signIn.withPassword({
        user: body.user,
        password: body.password,
        source: request.ip,
      });
      if (!result.ok) {
        sendThrottled(reply, result.retryAfterSeconds);
        return undefined;
      }
      user = result.user;
    } else
      throw new InputError(
        'SLUICE_AUTH_SIGN_IN_INVALID',
        'Sign in with a user name and password, or with an API token',
        { hint: 'Send {"user": NAME, "password": PASSWORD} or {"token": TOKEN}' },
      );
    const session = await startSession(s.sessions, user, { request, reply });
    await s.audit.record({
      accountId: user.accountId,
      actor: { userId: user.userId, userName: user.name, tokenId: session.id },
      action: 'signIn',
      target: '/api/auth/sign-in',
      source: request.ip,
      outcome: 'succeeded',
      status: 200,
      details: { user: user.name, method: body.token === undefined ? 'password' : 'token' },
    });
    return {
      user: { name: user.name, role: user.role },
      csrfToken: session.csrfToken,
      expiresAt: session.expiresAt.toISOString(),
      idleMinutes: s.sessions.idleMs / 60_000,
    } satisfies SessionInfo;
  });
  registerRoute(app, routes.signOut, auth, async ({ request, reply }) => {
    const value = sessionCookieOf(request);
    clearSessionCookie(request, reply);
    if (value === undefined) return undefined;
    requireOwnOrigin(request, publicUrl);
    const sent = request.headers[CSRF_HEADER];
    if (!s.sessions.checkCsrfToken(value, typeof sent === 'string' ? sent : undefined))
      throw new NotAllowedError(
        'SLUICE_AUTH_CSRF',
        `Signing out needs the session's CSRF token in ${CSRF_HEADER}`,
        { hint: 'Sign out from the web UI' },
      );
    const ended = await s.sessions.end(value);
    if (ended !== undefined)
      await s.audit.record({
        accountId: ended.accountId,
        actor: { userId: ended.userId, userName: null, tokenId: ended.id },
        action: 'signOut',
        target: '/api/auth/sign-out',
        source: request.ip,
        outcome: 'succeeded',
        status: 204,
      });
    return undefined;
  });
  registerRoute(app, routes.getSession, auth, async ({ principal, request }) => {
    const value = principal.session === true ? sessionCookieOf(request) : undefined;
    return {
      user: { name: principal.userName ?? '', role: principal.role ?? 'viewer' },
      csrfToken: value === undefined ? null : s.sessions.csrfTokenOf(value),
      expiresAt: value === undefined ? null : await s.sessions.expiresAtOf(value),
      idleMinutes: value === undefined ? null : s.sessions.idleMs / 60_000,
    };
  });
}

/** A sign-in or sign-out posted by a page of another site is refused (login CSRF). */
function requireOwnOrigin(request: FastifyRequest, publicUrl: string | undefined): void {
  const origin = request.headers.origin;
  if (origin === undefined || isOwnOrigin(origin, request, publicUrl)) return;
  throw new NotAllowedError('SLUICE_AUTH_CSRF', `A request from ${origin} may not sign in here`, {
    hint: "Sign in from the server's own web UI",
  });
}

function sendThrottled(reply: FastifyReply, seconds: number): void {
  void reply
    .status(429)
    .header('retry-after', String(seconds))
    .send({
      error: {
        code: 'SLUICE_AUTH_SIGN_IN_THROTTLED',
        message: `Too many failed sign-ins for this user name or address; try again in ${seconds} s`,
        hint: 'Wait, or ask an administrator to set a new password',
        requestId: reply.request.id,
      },
    });
}
