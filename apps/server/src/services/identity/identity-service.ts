/**
 * Accounts, users and API tokens. Tokens are random, shown once, stored as a SHA-256 hash and
 * scoped by kind: a user token acts for its user, an agent token for one agent's runtimes, an
 * engine token for one build. The first start creates the admin and prints its token once (one
 * of several replicas started together on an empty database: the others find it made).
 * @module
 */
import { AuthenticationError, NotFoundError } from '@sluice/errors';
import { sql } from '@sluice/db';
import type { ApiTokenRow, Executor } from '@sluice/db';
import type { TokenInfo, TokenKind } from '@sluice/protocol';
import { hashToken, newTokenValue, tokenDisplayPrefix } from '../../ids.js';
import type { Principal } from '../../http/auth.js';
import { coalescePasses } from '../coalesced-passes.js';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';
import type { SchedulingWakeups } from '../builds/scheduling-wakeups.js';

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
  kind: TokenKind;
  subjectId: string;
  name: string;
  expiresAt?: Date;
  /** A chosen value (SLUICE_BOOTSTRAP_TOKEN); random otherwise. */
  value?: string;
}

/** Do not write last_used_at more often than this per token: reads stay reads. */
const LAST_USED_GRANULARITY_MS = 60_000;

export class IdentityService {
  readonly #ctx: ServerContext;
  readonly #wakeups: SchedulingWakeups;
  readonly #lookups = coalescePasses((tokenHash) => this.#lookup(tokenHash));

  constructor(ctx: ServerContext, wakeups: SchedulingWakeups) {
    this.#ctx = ctx;
    this.#wakeups = wakeups;
  }

  /** Creates the default account and its admin on an empty database; the token once, or undefined. */
  async bootstrap(value: string | undefined): Promise<{ token: string } | undefined> {
    const db = this.#ctx.database.db;
    if (await hasAccount(db)) return undefined;
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
        .values({ id: userId, account_id: accountId, name: 'admin', is_admin: true })
        .execute();
      const { token } = await this.issueToken(
        { accountId, kind: 'user', subjectId: userId, name: 'bootstrap', value },
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
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { token, info: toTokenInfo(row) };
  }

  /**
   * An engine token for one build: it reaches only that build, and dies when the build ends.
   * Only made here: the statement that elects the build stores it (`electAndQueue`), so a
   * scheduling pass plans without writing.
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
   * The principal of a token. Requests with one token at once share one lookup that started
   * after each of them arrived, so a revocation committed before a request is always seen.
   */
  authenticate(token: string): Promise<Principal> {
    return this.#lookups(hashToken(token));
  }

  async #lookup(tokenHash: string): Promise<Principal> {
    const db = this.#ctx.database.db;
    const row = await db
      .selectFrom('api_tokens')
      .leftJoin('users', 'users.id', 'api_tokens.subject_id')
      .select([
        'api_tokens.id',
        'api_tokens.kind',
        'api_tokens.account_id',
        'api_tokens.subject_id',
        'api_tokens.expires_at',
        'api_tokens.revoked_at',
        'api_tokens.last_used_at',
        'users.is_admin',
      ])
      .where('api_tokens.token_hash', '=', tokenHash)
      .executeTakeFirst();
    const now = this.#ctx.clock();
    if (
      row === undefined ||
      row.revoked_at !== null ||
      (row.expires_at !== null && row.expires_at.getTime() <= now)
    ) {
      throw new AuthenticationError(
        'SLUICE_AUTH_INVALID_TOKEN',
        'The token is unknown, revoked or expired',
        { hint: 'Create a new token' },
      );
    }
    if (row.last_used_at === null || now - row.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
      await db
        .updateTable('api_tokens')
        .set({ last_used_at: new Date(now) })
        .where('id', '=', row.id)
        .execute();
    }
    return {
      kind: row.kind,
      tokenId: row.id,
      accountId: row.account_id,
      userId: row.kind === 'user' ? row.subject_id : undefined,
      isAdmin: row.kind === 'user' && row.is_admin === true,
      agentId: row.kind === 'agent' ? row.subject_id : undefined,
      buildId: row.kind === 'engine' ? row.subject_id : undefined,
    };
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
      .select(['id', 'name', 'is_admin'])
      .where('id', '=', principal.userId ?? '')
      .executeTakeFirstOrThrow();
    return { account, user: { id: user.id, name: user.name, isAdmin: user.is_admin } };
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

  async listTokens(principal: Principal): Promise<TokenInfo[]> {
    const rows = await this.#ctx.database.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('account_id', '=', principal.accountId)
      .where('subject_id', '=', principal.userId ?? '')
      .orderBy('id')
      .execute();
    return rows.map(toTokenInfo);
  }

  async revokeToken(principal: Principal, tokenId: string): Promise<void> {
    const result = await this.#ctx.database.db
      .updateTable('api_tokens')
      .set({ revoked_at: new Date(this.#ctx.clock()) })
      .where('id', '=', tokenId)
      .where('account_id', '=', principal.accountId)
      .where('subject_id', '=', principal.userId ?? '')
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n)
      throw new NotFoundError('SLUICE_TOKEN_NOT_FOUND', `Token ${tokenId} does not exist`);
  }

  /** Revokes every token of a subject (an agent deleted, a build finished). */
  async revokeSubject(executor: Executor, subjectId: string): Promise<void> {
    await executor
      .updateTable('api_tokens')
      .set({ revoked_at: new Date(this.#ctx.clock()) })
      .where('subject_id', '=', subjectId)
      .where('revoked_at', 'is', null)
      .execute();
  }
}

function toTokenInfo(row: ApiTokenRow): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    prefix: row.token_prefix,
    createdAt: isoTime(row.created_at) ?? '',
    lastUsedAt: isoTime(row.last_used_at),
    expiresAt: isoTime(row.expires_at),
    revokedAt: isoTime(row.revoked_at),
  };
}

async function hasAccount(executor: Executor): Promise<boolean> {
  const row = await executor.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}
