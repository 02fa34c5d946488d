/**
 * The web UI's session cookie (docs/access.md): `sluice_session`, HttpOnly, SameSite=Lax,
 * Path=/, and Secure whenever the request came over https (directly, or by `X-Forwarded-Proto`
 * behind a proxy trusted with `SLUICE_TRUST_PROXY`). A plain-http install (localhost) gets a
 * cookie without Secure, or the browser would never send it back.
 *
 * A request authenticated by the cookie that changes something must also carry its session's
 * CSRF token in `X-Sluice-CSRF` and, when the browser names its origin, come from this server's
 * own: a page of another site can make the browser send the cookie, but neither read the token
 * nor send the header. Bearer-token requests carry no ambient credential and need neither.
 * @module
 */
import { parseCookie, stringifySetCookie } from 'cookie';
import { AuthenticationError, NotAllowedError } from '@sluice/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {
  SessionLookup,
  SessionStore,
  StartedSession,
} from '../services/identity/session-store.js';
import type { Principal } from './auth.js';

export const SESSION_COOKIE = 'sluice_session';
export const CSRF_HEADER = 'x-sluice-csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session cookie's value in a request, if it sent one. */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const value = parseCookie(header)[SESSION_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

/** Whether the request reached the server over https (behind a trusted proxy: as the proxy says). */
export function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

/**
 * Starts a session for a user and sets its cookie on the reply: what every way of signing in
 * (password, an API token exchanged once, OpenID Connect) ends with.
 */
export async function startSession(
  sessions: SessionStore,
  user: { accountId: string; userId: string },
  http: { request: FastifyRequest; reply: FastifyReply },
): Promise<StartedSession> {
  const { request, reply } = http;
  const started = await sessions.start({
    ...user,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
  });
  void reply.header('set-cookie', sessionSetCookie(started.value, started.expiresAt, request));
  return started;
}

/** The `Set-Cookie` of a session: its value until `expiresAt`, or (value null) its removal. */
export function sessionSetCookie(
  value: string | null,
  expiresAt: Date,
  request: FastifyRequest,
): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value: value ?? '',
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: isHttps(request),
    expires: value === null ? new Date(0) : expiresAt,
  });
}

/** Removes the session cookie from the browser (sign-out, or a session that ended). */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('set-cookie', sessionSetCookie(null, new Date(0), request));
}

/** The 401 of a session cookie that no longer works, saying why, for the sign-in page. */
export function sessionError(
  lookup: Extract<SessionLookup, { reason: 'session' }>,
): AuthenticationError {
  const why =
    lookup.why === 'idle'
      ? `Your session ended after ${lookup.idleMinutes} minutes without use`
      : lookup.why === 'expired'
        ? 'Your session reached its time limit'
        : 'Your session has ended (signed out elsewhere, or your user was removed)';
  return new AuthenticationError('SLUICE_AUTH_SESSION_ENDED', why, {
    details: { reason: lookup.why },
    hint: 'Sign in again',
  });
}

/**
 * Refuses a state-changing request authenticated by the session cookie without its CSRF token,
 * or from a page of another origin.
 */
export function requireCsrf(
  request: FastifyRequest,
  principal: Principal,
  check: { sessions: SessionStore; value: string; publicUrl: string | undefined },
): void {
  if (principal.session !== true || SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, request, check.publicUrl)) {
    throw new NotAllowedError(
      'SLUICE_AUTH_CSRF',
      `A request from ${origin} may not use this server's session`,
      { hint: 'Use the Sluice web UI, or an API token (Authorization: Bearer) from elsewhere' },
    );
  }
  const sent = request.headers[CSRF_HEADER];
  if (!check.sessions.checkCsrfToken(check.value, typeof sent === 'string' ? sent : undefined)) {
    throw new NotAllowedError(
      'SLUICE_AUTH_CSRF',
      `A change made with the session cookie needs the session's CSRF token in ${CSRF_HEADER}`,
      { hint: 'Reload the web UI; scripts should use an API token instead of the cookie' },
    );
  }
}

/** Whether an `Origin` is this server's own, as the request reached it or as published. */
export function isOwnOrigin(
  origin: string,
  request: FastifyRequest,
  publicUrl: string | undefined,
): boolean {
  if (origin === `${request.protocol}://${request.host}`) return true;
  if (publicUrl === undefined) return false;
  try {
    return new URL(publicUrl).origin === origin;
  } catch {
    return false;
  }
}
