/**
 * Signing in to the web UI without an identity provider (docs/access.md): a user name and
 * password checked against the user's scrypt hash, or an API token exchanged once for a
 * session. Every attempt is in the audit log (`signIn`, with the outcome and, on a failure, why);
 * failures are throttled per name and per address (`sign-in-throttle.ts`), and a name that does
 * not exist costs the same scrypt work as one that does (`password-hasher.ts`).
 * @module
 */
import { AuthenticationError, InputError } from '@sluice/errors';
import type { Role } from '@sluice/protocol';
import type { AuditLog } from './audit-log.js';
import type { IdentityService } from './identity-service.js';
import { PasswordHasher } from './password-hasher.js';
import { SignInThrottle } from './sign-in-throttle.js';
import type { ServerContext } from '../server-context.js';

/** Wrong passwords allowed per user name and per address in a minute before attempts wait. */
export const SIGN_IN_FAILURE_LIMIT = 20;

export interface SignedInUser {
  accountId: string;
  userId: string;
  name: string;
  role: Role;
}

export type SignInResult =
  { ok: true; user: SignedInUser } | { ok: false; retryAfterSeconds: number };

export class SignInService {
  readonly #ctx: ServerContext;
  readonly #identity: IdentityService;
  readonly #audit: AuditLog;
  readonly passwords: PasswordHasher;
  readonly #throttle: SignInThrottle;

  constructor(ctx: ServerContext, deps: { identity: IdentityService; audit: AuditLog }) {
    this.#ctx = ctx;
    this.#identity = deps.identity;
    this.#audit = deps.audit;
    this.passwords = new PasswordHasher(ctx.config.passwordScrypt);
    this.#throttle = new SignInThrottle({
      limit: SIGN_IN_FAILURE_LIMIT,
      windowMs: 60_000,
      clock: ctx.clock,
    });
  }

  /** Checks a user name and password; a refusal is recorded, and throttled ones say how long to wait. */
  async withPassword(input: {
    user: string;
    password: string;
    source: string;
  }): Promise<SignInResult> {
    const name = input.user.trim().toLowerCase();
    const keys = [`user:${name}`, `address:${input.source}`];
    const row = await this.#ctx.database.db
      .selectFrom('users')
      .select(['id', 'account_id', 'name', 'role', 'password'])
      .where('name', '=', name)
      .orderBy('created_at')
      .executeTakeFirst();
    const wait = this.#throttle.retryAfterSeconds(keys);
    if (wait > 0) {
      await this.#recordFailure(row, { name, source: input.source, reason: 'throttled' });
      return { ok: false, retryAfterSeconds: wait };
    }
    const ok = await this.passwords.verify(row?.password ?? null, input.password);
    if (!ok || row === undefined) {
      this.#throttle.fail(keys);
      await this.#recordFailure(row, { name, source: input.source, reason: 'wrong-password' });
      throw new AuthenticationError('SLUICE_AUTH_SIGN_IN_FAILED', 'Wrong user name or password', {
        hint: 'An administrator sets passwords: sluice patch user NAME --password-stdin',
      });
    }
    this.#throttle.succeed(keys[0] ?? '');
    return {
      ok: true,
      user: { accountId: row.account_id, userId: row.id, name: row.name, role: row.role },
    };
  }

  /** An API token exchanged for a session: only one that carries all its user's rights. */
  async withToken(token: string): Promise<SignedInUser> {
    const lookup = await this.#identity.lookup(token);
    const principal = lookup.ok ? lookup.principal : undefined;
    if (principal?.kind !== 'user' || principal.userId === undefined)
      throw new AuthenticationError(
        'SLUICE_AUTH_INVALID_TOKEN',
        'The token is unknown, revoked or expired',
        { hint: 'Create a new token: sluice create token NAME' },
      );
    const role = principal.userRole ?? 'viewer';
    if (principal.role !== role)
      throw new InputError(
        'SLUICE_AUTH_TOKEN_TOO_NARROW',
        `A token of scope ${principal.tokenScope ?? '?'} cannot start a session: user ${principal.userName ?? '?'} is ${role === 'admin' ? 'an' : 'a'} ${role}, and a session acts with all of the user's rights`,
        { hint: "Sign in with a token of the user's full scope, or with the user's password" },
      );
    return {
      accountId: principal.accountId,
      userId: principal.userId,
      name: principal.userName ?? '',
      role,
    };
  }

  /** Sets (or, with null, removes) a user's password. */
  async setPassword(userId: string, password: string | null): Promise<void> {
    const hash = password === null ? null : await this.passwords.hash(password);
    await this.#ctx.database.db
      .updateTable('users')
      .set({ password: hash })
      .where('id', '=', userId)
      .execute();
  }

  async #recordFailure(
    row: { account_id: string; id: string; name: string } | undefined,
    what: { name: string; source: string; reason: string },
  ): Promise<void> {
    // A name nobody has belongs to no account: it is recorded in the first one.
    const accountId = row?.account_id ?? (await this.#firstAccount());
    if (accountId === undefined) return;
    await this.#audit.record({
      accountId,
      actor: { userId: row?.id ?? null, userName: row?.name ?? null, tokenId: null },
      action: 'signIn',
      target: '/api/auth/sign-in',
      source: what.source,
      outcome: 'denied',
      status: what.reason === 'throttled' ? 429 : 401,
      details: { user: what.name.slice(0, 100), reason: what.reason },
    });
  }

  async #firstAccount(): Promise<string | undefined> {
    const row = await this.#ctx.database.db
      .selectFrom('accounts')
      .select('id')
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
    return row?.id;
  }
}
