/**
 * Accounts and API tokens. Tokens are random, shown once, stored as a SHA-256 hash and scoped
 * by kind: a user token acts for its user (their role, narrowed by the token's scope:
 * docs/access.md), an agent token for one agent's runtimes, an engine token for one build. The
 * first start creates the admin and prints its token once (one of several replicas started
 * together on an empty database: the others find it made).
 * @module
 */
import { InputError, NotFoundError } from '@sluice/errors';
import { sql } from '@sluice/db';
import type { ApiTokenRow, Executor } from '@sluice/db';
import { effectiveRole, roleAtLeast, roleOfScope, scopeOfRole } from '@sluice/protocol';
import type { Role, TokenInfo, TokenKind, TokenScope } from '@sluice/protocol';
import { hashToken, newTokenValue, tokenDisplayPrefix } from '../../ids.js';
import { requireRole } from '../../http/auth.js';
import type { Principal, TokenLookup } from '../../http/auth.js';
import type { AuditLog } from './audit-log.js';
import { coalescePasses } from '../coalesced-passes.js';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';
import type { SchedulingWakeups } from '../scheduling-wakeups.js';

/** A new engine token: its value for the build's tasks, its row for `api_tokens`. */
export interface EngineToken {
  value: string;
  row: {
    id: string;
    accountId: string;
    buildId: string;
    name: string;
    hash: string;
    prefix: string;
  };
}

export interface IssueTokenOptions {
  accountId: string;
  /** Not `engine`: engine tokens are the build aggregate's (`builds/engine-tokens.ts`). */
  kind: Exclude<TokenKind, 'engine'>;
  subjectId: string;
  name: string;
  /** A user token's scope; agent tokens have none. */
  scope?: TokenScope;
  expiresAt?: Date;
  /** A chosen value (SLUICE_BOOTSTRAP_TOKEN); random otherwise. */
  value?: string;
}

/** Do not write last_used_at more often than this per token: reads stay reads. */
const LAST_USED_GRANULARITY_MS = 60_000;

export class IdentityService {
  readonly #ctx: ServerContext;
  readonly #wakeups: SchedulingWakeups;
  readonly #audit: AuditLog;
  readonly #lookups = coalescePasses((tokenHash) => this.#lookup(tokenHash));

  constructor(ctx: ServerContext, wakeups: SchedulingWakeups, audit: AuditLog) {
    this.#ctx = ctx;
    this.#wakeups = wakeups;
    this.#audit = audit;
  }

  /** Creates the default account and its admin on an empty database; the token once, or undefined. */
  async bootstrap(
    value: string | undefined,
    /** The admin's password hash, made only when the admin is (SLUICE_BOOTSTRAP_PASSWORD). */
    options: { passwordHash?: () => Promise<string> } = {},
  ): Promise<{ token: string } | undefined> {
    const db = this.#ctx.database.db;
    if (await hasAccount(db)) return undefined;
    const password = options.passwordHash === undefined ? null : await options.passwordHash();
    const accountId = this.#ctx.ids.next('acc');
    const userId = this.#ctx.ids.next('usr');
    return db.transaction().execute(async (trx) => {
      // Replicas started together on an empty database: the first to take the lock creates the
      // admin, the others find it once they get the lock (a fresh snapshot per statement).
      await sql`select pg_advisory_xact_lock(hashtext('sluice-bootstrap'))`.execute(trx);
      if (await hasAccount(trx)) return undefined;
      await trx.insertInto('accounts').values({ id: accountId, name: 'default' }).execute();
      await trx
        .insertInto('users')
        .values({
          id: userId,
          account_id: accountId,
          name: 'admin',
          role: 'admin',
          password,
        })
        .execute();
      const { token, info } = await this.issueToken(
        { accountId, kind: 'user', subjectId: userId, name: 'bootstrap', scope: 'admin', value },
        trx,
      );
      await this.#audit.record(
        {
          accountId,
          actor: null,
          action: 'bootstrap',
          target: '/api/v1/users/admin',
          source: null,
          outcome: 'succeeded',
          status: null,
          details: { user: 'admin', role: 'admin', token: info.id },
        },
        trx,
      );
      return { token };
    });
  }

  async issueToken(
    options: IssueTokenOptions,
    executor: Executor = this.#ctx.database.db,
  ): Promise<{ token: string; info: TokenInfo }> {
    const token = options.value ?? newTokenValue(options.kind);
    const id = this.#ctx.ids.next('tok');
    const row = await executor
      .insertInto('api_tokens')
      .values({
        id,
        account_id: options.accountId,
        kind: options.kind,
        subject_id: options.subjectId,
        name: options.name,
        token_hash: hashToken(token),
        token_prefix: tokenDisplayPrefix(token),
        expires_at: options.expiresAt ?? null,
        scope: options.kind === 'user' ? (options.scope ?? 'admin') : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const user = options.kind === 'user' ? await userNameOf(executor, options.subjectId) : null;
    return { token, info: toTokenInfo({ ...row, user_name: user }) };
  }

  /**
   * A user token made through the API: for the caller, or (admins) for another user. Its scope
   * defaults to the user's role and may only narrow it, and never reaches past what the calling
   * token acts as, so no token makes a wider one.
   */
  async createUserToken(
    principal: Principal,
    input: { name: string; scope?: TokenScope; expiresInSeconds?: number; user?: string },
  ): Promise<{ token: string; info: TokenInfo }> {
    const forOther = input.user !== undefined && input.user !== principal.userName;
    if (forOther) requireRole(principal, 'admin', "Making another user's token");
    const user = await this.#ctx.database.db
      .selectFrom('users')
      .select(['id', 'name', 'role'])
      .where('account_id', '=', principal.accountId)
      .where(forOther ? 'name' : 'id', '=', (forOther ? input.user : principal.userId) ?? '')
      .executeTakeFirst();
    if (user === undefined)
      throw new NotFoundError(
        'SLUICE_USER_NOT_FOUND',
        `User "${input.user ?? '?'}" does not exist`,
        {
          hint: 'See the users with: sluice get users',
        },
      );
    // By default all the user may do, but no more than the calling token acts as.
    const callerRole = principal.role ?? 'viewer';
    const scope =
      input.scope ?? scopeOfRole(roleAtLeast(user.role, callerRole) ? callerRole : user.role);
    if (!roleAtLeast(user.role, roleOfScope(scope)))
      throw new InputError(
        'SLUICE_TOKEN_SCOPE_TOO_WIDE',
        `A token of scope ${scope} would act as ${roleOfScope(scope)}, but user "${user.name}" is a ${user.role}`,
        { hint: `Use --scope ${scopeOfRole(user.role)} or narrower` },
      );
    requireRole(principal, roleOfScope(scope), `A token of scope ${scope}`);
    return this.issueToken({
      accountId: principal.accountId,
      kind: 'user',
      subjectId: user.id,
      name: input.name,
      scope,
      expiresAt:
        input.expiresInSeconds === undefined
          ? undefined
          : new Date(this.#ctx.clock() + input.expiresInSeconds * 1000),
    });
  }

  /**
   * An engine token for one build: it reaches only that build, and dies when the build ends.
   * Only made here: the statement that elects the build stores it (`BuildStore.electStarts`,
   * through `builds/engine-tokens.ts`), so a scheduling pass plans without writing.
   */
  newEngineToken(build: { accountId: string; buildId: string }): EngineToken {
    const value = newTokenValue('engine');
    return {
      value,
      row: {
        id: this.#ctx.ids.next('tok'),
        accountId: build.accountId,
        buildId: build.buildId,
        name: `engine ${build.buildId}`,
        hash: hashToken(value),
        prefix: tokenDisplayPrefix(value),
      },
    };
  }

  /**
   * The principal of a token, or why it is refused. Requests with one token at once share one
   * lookup that started after each of them arrived, so a revocation committed before a request
   * (a token revoked, its user removed or their role changed) is always seen.
   */
  lookup(token: string): Promise<TokenLookup> {
    return this.#lookups(hashToken(token));
  }

  async #lookup(tokenHash: string): Promise<TokenLookup> {
    const db = this.#ctx.database.db;
    const row = await db
      .selectFrom('api_tokens')
      .leftJoin('users', 'users.id', 'api_tokens.subject_id')
      .select([
        'api_tokens.id',
        'api_tokens.kind',
        'api_tokens.account_id',
        'api_tokens.subject_id',
        'api_tokens.scope',
        'api_tokens.expires_at',
        'api_tokens.revoked_at',
        'api_tokens.last_used_at',
        'users.id as user_id',
        'users.name as user_name',
        'users.role',
        'users.projects',
      ])
      .where('api_tokens.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (row === undefined) return { ok: false, reason: 'unknown' };
    const now = this.#ctx.clock();
    const rejection =
      row.revoked_at !== null
        ? 'revoked'
        : row.expires_at !== null && row.expires_at.getTime() <= now
          ? 'expired'
          : row.kind === 'user' && row.user_id === null
            ? 'user-removed'
            : undefined;
    if (rejection !== undefined) {
      const user = row.kind === 'user';
      return {
        ok: false,
        reason: rejection,
        owner: {
          accountId: row.account_id,
          tokenId: row.id,
          userId: user ? row.subject_id : null,
          userName: row.user_name,
        },
      };
    }
    if (row.last_used_at === null || now - row.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
      await db
        .updateTable('api_tokens')
        .set({ last_used_at: new Date(now) })
        .where('id', '=', row.id)
        .execute();
    }
    return { ok: true, principal: toPrincipal(row) };
  }

  async me(principal: Principal) {
    const db = this.#ctx.database.db;
    const account = await db
      .selectFrom('accounts')
      .select(['id', 'name'])
      .where('id', '=', principal.accountId)
      .executeTakeFirstOrThrow();
    const user = await db
      .selectFrom('users')
      .select(['id', 'name', 'role', 'projects'])
      .where('id', '=', principal.userId ?? '')
      .executeTakeFirstOrThrow();
    return {
      account,
      user: {
        id: user.id,
        name: user.name,
        isAdmin: user.role === 'admin',
        role: user.role,
        projects: user.projects,
      },
      token: {
        id: principal.tokenId,
        scope: principal.tokenScope ?? 'admin',
        role: principal.role ?? user.role,
      },
    };
  }

  /** A new limit may free places: its commit wakes the account's scheduling pass (waited for). */
  async updateAccount(accountId: string, update: { maxConcurrentBuilds: number | null }) {
    const row = await this.#wakeups.transaction(this.#ctx.database.db, async (trx) => {
      const updated = await trx
        .updateTable('accounts')
        .set({ max_concurrent_builds: update.maxConcurrentBuilds })
        .where('id', '=', accountId)
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.#wakeups.announce(trx, accountId);
      return updated;
    });
    return {
      id: row.id,
      name: row.name,
      defaultRuntime: row.default_runtime,
      maxConcurrentBuilds: row.max_concurrent_builds,
    };
  }

  /** The caller's tokens, or (admins) another user's. */
  async listTokens(principal: Principal, userName?: string): Promise<TokenInfo[]> {
    const forOther = userName !== undefined && userName !== principal.userName;
    if (forOther) requireRole(principal, 'admin', "Listing another user's tokens");
    const rows = await this.#ctx.database.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.subject_id')
      .selectAll('api_tokens')
      .select('users.name as user_name')
      .where('api_tokens.account_id', '=', principal.accountId)
      .where('api_tokens.kind', '=', 'user')
      .where(
        forOther ? 'users.name' : 'users.id',
        '=',
        (forOther ? userName : principal.userId) ?? '',
      )
      .orderBy('api_tokens.id')
      .execute();
    return rows.map(toTokenInfo);
  }

  /** Revokes one of the caller's tokens, or (admins) any user token of the account. */
  async revokeToken(principal: Principal, tokenId: string): Promise<void> {
    const admin = principal.role === 'admin';
    const result = await this.#ctx.database.db
      .updateTable('api_tokens')
      .set({ revoked_at: new Date(this.#ctx.clock()) })
      .where('id', '=', tokenId)
      .where('account_id', '=', principal.accountId)
      .where('kind', '=', 'user')
      .where((eb) => (admin ? eb.lit(true) : eb('subject_id', '=', principal.userId ?? '')))
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n)
      throw new NotFoundError('SLUICE_TOKEN_NOT_FOUND', `Token ${tokenId} does not exist`, {
        hint: 'See your tokens with: sluice get tokens',
      });
  }

  /** Revokes every token of a subject (an agent deleted, a user removed). */
  async revokeSubject(executor: Executor, subjectId: string): Promise<void> {
    await executor
      .updateTable('api_tokens')
      .set({ revoked_at: new Date(this.#ctx.clock()) })
      .where('subject_id', '=', subjectId)
      .where('revoked_at', 'is', null)
      .execute();
  }
}

interface LookupRow {
  id: string;
  kind: TokenKind;
  account_id: string;
  subject_id: string;
  scope: TokenScope | null;
  user_id: string | null;
  user_name: string | null;
  role: Role | null;
  projects: string[] | null;
}

function toPrincipal(row: LookupRow): Principal {
  const user = row.kind === 'user';
  const userRole = user ? (row.role ?? 'viewer') : undefined;
  const tokenScope = user ? (row.scope ?? 'read') : undefined;
  return {
    kind: row.kind,
    tokenId: row.id,
    accountId: row.account_id,
    userId: user ? row.subject_id : undefined,
    userName: user ? (row.user_name ?? undefined) : undefined,
    role:
      userRole !== undefined && tokenScope !== undefined
        ? effectiveRole(userRole, tokenScope)
        : undefined,
    userRole,
    tokenScope,
    // Admins use every project whatever a stale column says.
    projects: user && userRole !== 'admin' ? row.projects : null,
    agentId: row.kind === 'agent' ? row.subject_id : undefined,
    buildId: row.kind === 'engine' ? row.subject_id : undefined,
  };
}

async function userNameOf(executor: Executor, userId: string): Promise<string | null> {
  const row = await executor
    .selectFrom('users')
    .select('name')
    .where('id', '=', userId)
    .executeTakeFirst();
  return row?.name ?? null;
}

function toTokenInfo(row: ApiTokenRow & { user_name: string | null }): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    prefix: row.token_prefix,
    createdAt: isoTime(row.created_at) ?? '',
    lastUsedAt: isoTime(row.last_used_at),
    expiresAt: isoTime(row.expires_at),
    revokedAt: isoTime(row.revoked_at),
    scope: row.scope,
    user: row.user_name,
  };
}

async function hasAccount(executor: Executor): Promise<boolean> {
  const row = await executor.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}
