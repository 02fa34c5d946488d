/**
 * The checks of what a browser brings to the sign-in pages: where to go back to (a path on this
 * server, never another site: no open redirect), and `sluice auth login`'s request (a loopback
 * redirect URI, as RFC 8252 has native apps use, a PKCE S256 challenge and a state).
 * @module
 */
import { InputError } from '@sluice/errors';
import type { CliRequest } from '../services/identity/oidc-sign-in.js';

/** `value` when it is a path on this server (`/x`, not `//host` or `/\host`); `/` otherwise. */
export function localPath(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : '/';
}

const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'];

/** The CLI's request from `/auth/cli`'s query; InputError naming the first bad part. */
export function cliRequestOf(query: Record<string, unknown>): CliRequest {
  const redirect = typeof query.redirect_uri === 'string' ? query.redirect_uri : '';
  let url: URL | undefined;
  try {
    url = new URL(redirect);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' || !LOOPBACK_HOSTS.includes(url.hostname) || url.port === '')
    throw bad(`redirect_uri "${redirect}" is not a loopback address (http://127.0.0.1:PORT/...)`);
  const challenge = query.code_challenge;
  if (typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(challenge))
    throw bad('code_challenge is not a PKCE S256 challenge (43 base64url characters)');
  const state = query.state;
  if (typeof state !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(state))
    throw bad('state must be 16 to 128 base64url characters');
  return { redirectUri: url.href, codeChallenge: challenge, state };
}

function bad(message: string): InputError {
  return new InputError(
    'SLUICE_AUTH_LOGIN_REQUEST_INVALID',
    `This sign-in link is broken: ${message}`,
    {
      hint: 'Run sluice auth login again and open the link it prints, unchanged',
    },
  );
}
