/**
 * `sluice auth login`'s routes beside `/api/v1` (they come before a token, like the web UI's
 * sign-in): the one-time code traded for a token, and `auth logout` revoking the token it
 * carries. The browser's sign-in pages (`/auth/oidc/start`, `/auth/oidc/callback`,
 * `/auth/cli`) are HTML and not in this table.
 * @module
 */
import { route } from './route.js';
import { CliLoginToken, CliLoginTokenResult } from './schemas/auth.js';

export const authRoutes = {
  cliLoginToken: route({
    method: 'POST',
    path: '/api/auth/cli/token',
    scope: 'public',
    tag: 'auth',
    summary:
      'sluice auth login: a one-time code from the loopback redirect and the PKCE verifier of its challenge, for an API token',
    body: CliLoginToken,
    response: CliLoginTokenResult,
    status: 201,
  }),
  revokeCallerToken: route({
    method: 'DELETE',
    path: '/api/auth/token',
    scope: 'public',
    tag: 'auth',
    summary:
      'sluice auth logout: revoke the user token this request carries (any role may end its own)',
    status: 204,
  }),
};
