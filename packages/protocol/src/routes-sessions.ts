/**
 * Routes for the web UI's sign-in (docs/access.md): starting and ending a browser session (the
 * `sluice_session` cookie) and what the sign-in page offers. Signing in and out need no token,
 * so they live beside `/api/v1`, not in it; the session of a caller is a route of `/api/v1`.
 * @module
 */
import { route } from './route.js';
import { AuthProviders, SessionInfo, SignIn } from './schemas/sessions.js';

export const sessionRoutes = {
  authProviders: route({
    method: 'GET',
    path: '/api/auth/providers',
    scope: 'public',
    tag: 'sessions',
    summary: 'The ways of signing in to the web UI this server offers',
    response: AuthProviders,
  }),
  signIn: route({
    method: 'POST',
    path: '/api/auth/sign-in',
    scope: 'public',
    tag: 'sessions',
    summary:
      'Sign in with a user name and password (or an API token, once): starts a session and sets its cookie',
    body: SignIn,
    response: SessionInfo,
  }),
  signOut: route({
    method: 'POST',
    path: '/api/auth/sign-out',
    scope: 'public',
    tag: 'sessions',
    summary: "End the caller's session and remove its cookie",
    status: 204,
  }),
  getSession: route({
    method: 'GET',
    path: '/api/v1/session',
    scope: 'viewer',
    tag: 'sessions',
    summary: "The caller's session: user, role and the CSRF token the web UI sends with changes",
    response: SessionInfo,
  }),
};
