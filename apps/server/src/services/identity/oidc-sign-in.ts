/**
 * Single sign-on with OpenID Connect (docs/access.md): the Authorization Code flow with PKCE,
 * state and nonce, done by `openid-client` (never by hand). `start` reads the provider's
 * discovery document (so a provider that is down is found here, before anyone is sent to it),
 * keeps the verifier, state and nonce server-side under a one-use key (`SignInFlows`) and
 * gives the provider's URL; `finish` takes that key back, has `openid-client` check the
 * callback and redeem the code, reads the groups claim and makes or updates the user with the
 * role their groups give. Every failure leaves as a coded error naming what to do.
 * @module
 */
import * as client from 'openid-client';
import { InputError, NotAllowedError, UnavailableError } from '@sluice/errors';
import type { SluiceError } from '@sluice/errors';
import type { SignInFlowData } from '@sluice/db';
import type { OidcConfig } from '../../oidc-config.js';
import type { ServerContext } from '../server-context.js';
import { groupsOfClaim, roleOfGroups } from './oidc-roles.js';
import { flowText } from './sign-in-flows.js';
import type { SignInFlows } from './sign-in-flows.js';
import { signInProviderUser } from './sso-users.js';
import type { SsoUser } from './sso-users.js';

/** A sign-in in flight stays this long between the redirect and the callback. */
export const OIDC_FLOW_TTL_MS = 10 * 60_000;
/** The provider answers each request within this long, or the sign-in says it is down. */
const PROVIDER_TIMEOUT_SECONDS = 10;

/** Where `sluice auth login` waits for its code: a loopback URL, its PKCE challenge, its state. */
export interface CliRequest {
  redirectUri: string;
  codeChallenge: string;
  state: string;
}

export interface SignedIn {
  user: SsoUser;
  groups: string[];
  returnTo: string;
  cli: CliRequest | undefined;
}

/** A refused sign-in: the error, and what is known of who tried (for the audit log). */
export class SignInRefusal extends Error {
  readonly error: SluiceError;
  readonly who: { name: string; groups: string[] } | undefined;
  constructor(error: SluiceError, who?: { name: string; groups: string[] }) {
    super(error.message, { cause: error });
    this.error = error;
    this.who = who;
  }
}

export class OidcSignIn {
  readonly #config: OidcConfig;
  readonly #ctx: ServerContext;
  readonly #flows: SignInFlows;

  constructor(config: OidcConfig, ctx: ServerContext, flows: SignInFlows) {
    this.#config = config;
    this.#ctx = ctx;
    this.#flows = flows;
  }

  get name(): string {
    return this.#config.name;
  }

  get redirectUri(): string {
    return this.#config.redirectUri;
  }

  /** The provider's authorization URL, and the key the callback must bring back (a cookie). */
  async start(input: {
    returnTo: string;
    cli?: CliRequest;
  }): Promise<{ url: string; flowKey: string }> {
    const provider = await this.#discover();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const flow: SignInFlowData = { verifier, state, nonce, returnTo: input.returnTo };
    if (input.cli !== undefined) flow.cli = { ...input.cli };
    const flowKey = await this.#flows.put('oidc', flow, OIDC_FLOW_TTL_MS);
    const url = client.buildAuthorizationUrl(provider, {
      redirect_uri: this.#config.redirectUri,
      scope: this.#config.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, flowKey };
  }

  /**
   * Checks the provider's callback (its query string) against the flow of `flowKey`, redeems
   * the code and signs the user in with the role their groups give.
   * @throws SignInRefusal
   */
  async finish(input: { query: string; flowKey: string | undefined }): Promise<SignedIn> {
    const flow =
      input.flowKey === undefined ? undefined : await this.#flows.take('oidc', input.flowKey);
    if (flow === undefined)
      throw new SignInRefusal(
        new InputError(
          'SLUICE_OIDC_FLOW_INVALID',
          'This sign-in is unknown, expired or already used (or was started in another browser)',
          { hint: 'Start again from the sign-in page' },
        ),
      );
    const provider = await this.#discover().catch((err: SluiceError) => {
      throw new SignInRefusal(err);
    });
    const callback = new URL(this.#config.redirectUri);
    callback.search = input.query;
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(provider, callback, {
        pkceCodeVerifier: flowText(flow, 'verifier'),
        expectedState: flowText(flow, 'state'),
        expectedNonce: flowText(flow, 'nonce'),
        idTokenExpected: true,
      });
    } catch (err) {
      throw new SignInRefusal(providerError(err, this.#config.issuer, 'redeeming the code'));
    }
    const idClaims = tokens.claims();
    if (idClaims === undefined) throw new Error('openid-client returned no ID token claims');
    const claims = await this.#claims(provider, idClaims, tokens.access_token);
    const groups = groupsOfClaim(claims[this.#config.groupsClaim]);
    const claimedName = nameClaim(claims);
    const role = roleOfGroups(this.#config.roles, groups);
    if (role === undefined)
      throw new SignInRefusal(
        new NotAllowedError(
          'SLUICE_OIDC_NO_ROLE',
          `${claimedName} is in no group that gives a role on this Sluice server (groups: ${groups.join(', ') || 'none'})`,
          {
            hint: 'Ask an administrator to add one of your groups to SLUICE_OIDC_ROLES, or to add you to a group it names',
            details: { groups },
          },
        ),
        { name: claimedName, groups },
      );
    const user = await signInProviderUser(this.#ctx, {
      issuer: this.#config.issuer,
      subject: idClaims.sub,
      claimedName,
      role,
    }).catch((err: SluiceError) => {
      throw new SignInRefusal(err, { name: claimedName, groups });
    });
    return {
      user,
      groups,
      returnTo: flowText(flow, 'returnTo'),
      cli:
        typeof flow.cli === 'object'
          ? {
              redirectUri: flow.cli.redirectUri ?? '',
              codeChallenge: flow.cli.codeChallenge ?? '',
              state: flow.cli.state ?? '',
            }
          : undefined,
    };
  }

  /**
   * The ID token's claims, with the userinfo answer's when the token lacks the groups claim
   * (many providers, oidc-provider among them, put scope claims only there).
   */
  async #claims(
    provider: client.Configuration,
    claims: client.IDToken,
    accessToken: string,
  ): Promise<Record<string, unknown>> {
    if (claims[this.#config.groupsClaim] !== undefined) return claims;
    try {
      const info = await client.fetchUserInfo(provider, accessToken, claims.sub);
      return { ...info, ...claims };
    } catch (err) {
      throw new SignInRefusal(providerError(err, this.#config.issuer, 'reading userinfo'));
    }
  }

  /** The provider's metadata, read anew at every sign-in (one small request). */
  async #discover(): Promise<client.Configuration> {
    const issuer = new URL(this.#config.issuer);
    const secret = this.#config.clientSecret;
    try {
      return await client.discovery(
        issuer,
        this.#config.clientId,
        secret,
        secret === undefined ? client.None() : client.ClientSecretBasic(secret),
        {
          timeout: PROVIDER_TIMEOUT_SECONDS,
          // Plain http only to a provider on this machine (a test's, a developer's).
          execute: isLoopbackHttp(issuer) ? [client.allowInsecureRequests] : [],
        },
      );
    } catch (err) {
      throw providerError(err, this.#config.issuer, 'reading its discovery document');
    }
  }
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/** What the provider calls them: `preferred_username`, else `email`, else the subject. */
function nameClaim(claims: Record<string, unknown>): string {
  for (const key of ['preferred_username', 'email', 'sub']) {
    const value = claims[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return '?';
}

/** The provider's failure as people read it: down, refusing, or answering wrongly. */
export function providerError(err: unknown, issuer: string, doing: string): SluiceError {
  if (err instanceof client.AuthorizationResponseError)
    return new NotAllowedError(
      'SLUICE_OIDC_DENIED',
      `The identity provider did not sign you in: ${err.error}${describe(err.error_description)}`,
      {
        hint: 'Sign in again; if it says the same, ask who runs the identity provider',
        cause: err,
      },
    );
  const unreachable = unreachableReason(err);
  if (unreachable !== undefined)
    return new UnavailableError(
      'SLUICE_OIDC_UNREACHABLE',
      `The identity provider at ${issuer} did not answer while ${doing} (${unreachable})`,
      {
        hint: 'Check that it is up and reachable from the Sluice server and that SLUICE_OIDC_ISSUER is right, then sign in again',
        cause: err,
      },
    );
  const refused =
    err instanceof client.ResponseBodyError
      ? `${err.error}${describe(err.error_description)}`
      : (err as Error).message;
  return new UnavailableError(
    'SLUICE_OIDC_PROVIDER_ERROR',
    `The identity provider at ${issuer} failed while ${doing}: ${refused}`,
    {
      hint: 'Check SLUICE_OIDC_ISSUER (exactly as the provider names itself), SLUICE_OIDC_CLIENT_ID, the client secret, and that SLUICE_PUBLIC_URL/auth/oidc/callback is a redirect URI of the client there',
      cause: err,
    },
  );
}

function describe(text: string | undefined): string {
  return text === undefined || text === '' ? '' : ` (${text})`;
}

/** Why the provider could not be reached, or undefined when it answered. */
function unreachableReason(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'no answer in time';
  const cause = err.cause as { code?: unknown } | undefined;
  if (err instanceof TypeError && err.message === 'fetch failed')
    return typeof cause?.code === 'string' ? cause.code : 'the connection failed';
  return undefined;
}
