/**
 * Routes of `/api/v1/auth/` that come before a token: the ways to sign in, and `sluice auth
 * login`'s code traded for a token. They are public; the browser's sign-in pages themselves
 * (`/auth/oidc/start`, `/auth/oidc/callback`, `/auth/cli`) are HTML and not in this table.
 * @module
 */
import { route } from './route.js';
import { AuthProviders, CliLoginToken, CliLoginTokenResult } from './schemas/auth.js';

const V1 = '/api/v1';

export const authRoutes = {
  authProviders: route({
    method: 'GET',
    path: `${V1}/auth/providers`,
    scope: 'public',
    tag: 'auth',
    summary: 'The ways to sign in: user name and password, single sign-on (the sign-in page asks)',
    response: AuthProviders,
  }),
  cliLoginToken: route({
    method: 'POST',
    path: `${V1}/auth/cli/token`,
    scope: 'public',
    tag: 'auth',
    summary:
      'sluice auth login: a one-time code from the loopback redirect and the PKCE verifier of its challenge, for an API token',
    body: CliLoginToken,
    response: CliLoginTokenResult,
    status: 201,
  }),
};
