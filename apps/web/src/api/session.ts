/**
 * The browser's session with the server (docs/access.md): an HttpOnly cookie the page never
 * sees, set by signing in with a user name and password (or an API token, exchanged once).
 * Nothing is kept in localStorage or sessionStorage: what the page knows of its session (the
 * user and the CSRF token it sends with every change) is asked of the server at each load.
 * @module
 */
import { AuthenticationError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { AuthProviders, SessionInfo } from '@sluice/protocol';

export const CSRF_HEADER = 'x-sluice-csrf';

function client(headers: Record<string, string> = {}) {
  return createClient({ baseUrl: window.location.origin, headers });
}

/** The current session, or why there is none (null: never signed in, nothing to say). */
export async function loadSession(): Promise<
  { ok: true; session: SessionInfo } | { ok: false; reason: string | null }
> {
  try {
    return { ok: true, session: await client().call('getSession') };
  } catch (err) {
    if (!(err instanceof AuthenticationError)) throw err;
    // No cookie at all is a first visit; an ended session says why.
    return { ok: false, reason: err.code === 'SLUICE_AUTH_SESSION_ENDED' ? err.message : null };
  }
}

export function signInWithPassword(user: string, password: string): Promise<SessionInfo> {
  return client().call('signIn', { body: { user, password } });
}

export function signInWithToken(token: string): Promise<SessionInfo> {
  return client().call('signIn', { body: { token } });
}

export async function signOut(csrfToken: string | null): Promise<void> {
  await client(csrfToken === null ? {} : { [CSRF_HEADER]: csrfToken }).call('signOut');
}

export function loadProviders(): Promise<AuthProviders> {
  return client().call('authProviders');
}
