/**
 * Browser sessions, kept on the server (docs/access.md): a session's value is 240 random bits
 * held only by the browser's HttpOnly cookie; the table keeps its SHA-256. A session acts as its
 * user with the user's role read on every request, so a lowered role takes effect at the next
 * request and a removed user's sessions are gone with them (the rows cascade). It ends when
 * unused for the idle limit, at its absolute limit whatever happens, or at sign-out. The CSRF
 * token of a session is derived from its value with the server's key: the UI reads it from
 * `GET /api/v1/session` and sends it in a header, which a page of another site cannot.
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SERVER_DEFAULTS } from '@sluice/config';
import { scopeOfRole } from '@sluice/protocol';
import type { Role } from '@sluice/protocol';
import { hashToken } from '../../ids.js';
import type { TokenLookup } from '../../http/auth.js';
import type { ServerContext } from '../server-context.js';

/** The prefix of a session cookie's value, so one found in a log or a paste is recognised. */
export const SESSION_VALUE_PREFIX = 'slu_s_';

export interface StartSessionOptions {
  accountId: string;
  userId: string;
  /** The client's address and user agent, kept for the user's list of sessions and the audit log. */
  ip: string | null;
  userAgent: string | null;
}

export interface StartedSession {
  /** The cookie's value: given to the browser once, never stored. */
  value: string;
  id: string;
  csrfToken: string;
  expiresAt: Date;
}

/** Why a session cookie was refused: its session is unknown (signed out, user removed) or expired. */
export type SessionRejection = 'ended' | 'idle' | 'expired';

export type SessionLookup =
  TokenLookup | { ok: false; reason: 'session'; why: SessionRejection; idleMinutes: number };

/** Do not write last_seen_at more often than this per session: reads stay reads. */
const LAST_SEEN_GRANULARITY_MS = 60_000;
const MINUTE_MS = 60_000;

export class SessionStore {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  get idleMs(): number {
    return (this.#ctx.config.sessionIdleMinutes ?? SERVER_DEFAULTS.sessionIdleMinutes) * MINUTE_MS;
  }

  get maxMs(): number {
    return (this.#ctx.config.sessionMaxHours ?? SERVER_DEFAULTS.sessionMaxHours) * 60 * MINUTE_MS;
  }

  /** A new session of `userId`; its value goes in the cookie, its CSRF token to the UI. */
  async start(options: StartSessionOptions): Promise<StartedSession> {
    const value = SESSION_VALUE_PREFIX + randomBytes(30).toString('base64url');
    const now = this.#ctx.clock();
    const id = this.#ctx.ids.next('ses');
    const expiresAt = new Date(now + this.maxMs);
    await this.#ctx.database.db
      .insertInto('sessions')
      .values({
        id,
        id_hash: hashToken(value),
        account_id: options.accountId,
        user_id: options.userId,
        created_at: new Date(now),
        last_seen_at: new Date(now),
        expires_at: expiresAt,
        ip: options.ip?.slice(0, 100) ?? null,
        user_agent: options.userAgent?.slice(0, 300) ?? null,
      })
      .execute();
    return { value, id, csrfToken: this.csrfTokenOf(value), expiresAt };
  }

  /** The principal of a session cookie's value (its user's role as it is now), or why not. */
  async lookup(value: string): Promise<SessionLookup> {
    const db = this.#ctx.database.db;
    const row = await db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'sessions.id',
        'sessions.account_id',
        'sessions.user_id',
        'sessions.last_seen_at',
        'sessions.expires_at',
        'users.name as user_name',
        'users.role',
        'users.projects',
      ])
      .where('sessions.id_hash', '=', hashToken(value))
      .executeTakeFirst();
    const idleMinutes = this.idleMs / MINUTE_MS;
    if (row === undefined) return { ok: false, reason: 'session', why: 'ended', idleMinutes };
    const now = this.#ctx.clock();
    const why: SessionRejection | undefined =
      row.expires_at.getTime() <= now
        ? 'expired'
        : now - row.last_seen_at.getTime() >= this.idleMs
          ? 'idle'
          : undefined;
    if (why !== undefined) {
      await db.deleteFrom('sessions').where('id', '=', row.id).execute();
      return { ok: false, reason: 'session', why, idleMinutes };
    }
    if (now - row.last_seen_at.getTime() > LAST_SEEN_GRANULARITY_MS)
      await db
        .updateTable('sessions')
        .set({ last_seen_at: new Date(now) })
        .where('id', '=', row.id)
        .execute();
    return { ok: true, principal: sessionPrincipal(row) };
  }

  /** Ends the session of a cookie's value (sign-out); ended already: nothing to do. */
  async end(value: string): Promise<{ id: string; accountId: string; userId: string } | undefined> {
    const row = await this.#ctx.database.db
      .deleteFrom('sessions')
      .where('id_hash', '=', hashToken(value))
      .returning(['id', 'account_id', 'user_id'])
      .executeTakeFirst();
    return row && { id: row.id, accountId: row.account_id, userId: row.user_id };
  }

  /** When the session of a cookie's value ends at the latest (ISO), or null when it is gone. */
  async expiresAtOf(value: string): Promise<string | null> {
    const row = await this.#ctx.database.db
      .selectFrom('sessions')
      .select('expires_at')
      .where('id_hash', '=', hashToken(value))
      .executeTakeFirst();
    return row?.expires_at.toISOString() ?? null;
  }

  /** Deletes sessions past their absolute limit, a batch at a time; how many went. */
  async prune(batch = 500): Promise<number> {
    const result = await this.#ctx.database.db
      .deleteFrom('sessions')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('sessions')
          .select('id')
          .where('expires_at', '<=', new Date(this.#ctx.clock()))
          .limit(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The CSRF token of a session: derived from its value, so nothing more is stored. */
  csrfTokenOf(value: string): string {
    return createHmac('sha256', this.#ctx.secretKey)
      .update(`sluice-csrf\0${value}`)
      .digest('base64url');
  }

  /** Whether `sent` is the CSRF token of the session `value`, compared in constant time. */
  checkCsrfToken(value: string, sent: string | undefined): boolean {
    if (sent === undefined) return false;
    const wanted = Buffer.from(this.csrfTokenOf(value));
    const given = Buffer.from(sent);
    return wanted.length === given.length && timingSafeEqual(wanted, given);
  }
}

function sessionPrincipal(row: {
  id: string;
  account_id: string;
  user_id: string;
  user_name: string;
  role: Role;
  projects: string[] | null;
}) {
  return {
    kind: 'user' as const,
    tokenId: row.id,
    accountId: row.account_id,
    userId: row.user_id,
    userName: row.user_name,
    role: row.role,
    userRole: row.role,
    tokenScope: scopeOfRole(row.role),
    projects: row.role === 'admin' ? null : row.projects,
    agentId: undefined,
    buildId: undefined,
    session: true,
  };
}
