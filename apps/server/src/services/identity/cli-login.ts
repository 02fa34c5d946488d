/**
 * `sluice auth login`'s server side, as `gh auth login` does it with a loopback redirect: once
 * the browser has signed the user in, the server sends it to the CLI's loopback address with
 * a one-time code bound to the CLI's PKCE challenge; the CLI trades the code and its verifier
 * for an API token (the scope it asks for, at most the user's role; expiring). A code lives
 * two minutes and is taken once, so one seen in a browser's history is worth nothing.
 * @module
 */
import { createHash } from 'node:crypto';
import { AuthenticationError, InputError } from '@sluice/errors';
import { roleAtLeast, roleOfScope, scopeOfRole } from '@sluice/protocol';
import type { TokenInfo, TokenScope } from '@sluice/protocol';
import type { ServerContext } from '../server-context.js';
import type { CliRequest } from './oidc-sign-in.js';
import type { IdentityService } from './identity-service.js';
import { flowText } from './sign-in-flows.js';
import type { SignInFlows } from './sign-in-flows.js';

const CODE_TTL_MS = 2 * 60_000;

export interface CliTokenRequest {
  code: string;
  codeVerifier: string;
  name: string;
  scope?: TokenScope;
  expiresInSeconds: number;
}

export class CliLogin {
  readonly #ctx: ServerContext;
  readonly #flows: SignInFlows;
  readonly #identity: IdentityService;

  constructor(ctx: ServerContext, flows: SignInFlows, identity: IdentityService) {
    this.#ctx = ctx;
    this.#flows = flows;
    this.#identity = identity;
  }

  /** The CLI's loopback URL with a one-time code for `userId` and the CLI's state. */
  async redirectWithCode(userId: string, cli: CliRequest): Promise<string> {
    const code = await this.#flows.put(
      'cli-code',
      { userId, codeChallenge: cli.codeChallenge },
      CODE_TTL_MS,
    );
    const url = new URL(cli.redirectUri);
    url.searchParams.set('code', code);
    url.searchParams.set('state', cli.state);
    return url.href;
  }

  /** The token for a code and the verifier of its challenge; 401 for anything else. */
  async exchange(request: CliTokenRequest): Promise<{
    token: string;
    info: TokenInfo;
    user: { id: string; name: string; accountId: string };
  }> {
    const flow = await this.#flows.take('cli-code', request.code);
    const challenge = createHash('sha256').update(request.codeVerifier).digest('base64url');
    if (flow === undefined || flow.codeChallenge !== challenge)
      throw new AuthenticationError(
        'SLUICE_AUTH_LOGIN_CODE_INVALID',
        'The sign-in code is unknown, expired, already used or not for this verifier',
        { hint: 'Run sluice auth login again' },
      );
    const user = await this.#ctx.database.db
      .selectFrom('users')
      .select(['id', 'name', 'role', 'account_id'])
      .where('id', '=', flowText(flow, 'userId'))
      .executeTakeFirst();
    if (user === undefined)
      throw new AuthenticationError(
        'SLUICE_AUTH_LOGIN_CODE_INVALID',
        'The user who signed in was removed meanwhile',
        { hint: 'Ask an administrator, then run sluice auth login again' },
      );
    const scope = request.scope ?? scopeOfRole(user.role);
    if (!roleAtLeast(user.role, roleOfScope(scope)))
      throw new InputError(
        'SLUICE_TOKEN_SCOPE_TOO_WIDE',
        `A token of scope ${scope} would act as ${roleOfScope(scope)}, but user "${user.name}" is a ${user.role}`,
        { hint: `Use --scope ${scopeOfRole(user.role)} or narrower` },
      );
    const made = await this.#identity.issueToken({
      accountId: user.account_id,
      kind: 'user',
      subjectId: user.id,
      name: request.name,
      scope,
      expiresAt: new Date(this.#ctx.clock() + request.expiresInSeconds * 1000),
    });
    return { ...made, user: { id: user.id, name: user.name, accountId: user.account_id } };
  }
}
