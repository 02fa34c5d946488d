/**
 * The audit log: who did what, to what, from where, when and how it ended, one row of
 * `audit_events` per change, refusal or token event (docs/access.md). Rows name the user as
 * they were called then (no foreign key: the history outlives them) and the token by id; what a
 * caller passes in `details` is names and roles only, never a value, a secret or a token.
 * @module
 */
import { jsonb } from '@sluice/db';
import type { AuditEventRow, AuditOutcome, Executor } from '@sluice/db';
import type { AuditEvent } from '@sluice/protocol';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';

export type AuditDetails = Record<string, string | string[] | null>;

export interface AuditEntry {
  accountId: string;
  /** Who: null for the server itself (the first start). */
  actor: { userId: string | null; userName: string | null; tokenId: string | null } | null;
  /** A route's name (`updatePipeline`) or an event's (`tokenRejected`, `bootstrap`). */
  action: string;
  target: string;
  source: string | null;
  outcome: AuditOutcome;
  status: number | null;
  details?: AuditDetails;
}

export interface ListAuditOptions {
  accountId: string;
  limit: number;
  cursor?: string;
  since?: string;
  user?: string;
  action?: string;
  until?: string;
}

export class AuditLog {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  async record(entry: AuditEntry, executor: Executor = this.#ctx.database.db): Promise<void> {
    await executor
      .insertInto('audit_events')
      .values({
        id: this.#ctx.ids.next('aud'),
        account_id: entry.accountId,
        at: new Date(this.#ctx.clock()),
        actor_user_id: entry.actor?.userId ?? null,
        actor_name: entry.actor?.userName ?? null,
        token_id: entry.actor?.tokenId ?? null,
        action: entry.action,
        target: entry.target,
        source: entry.source,
        outcome: entry.outcome,
        status: entry.status,
        details: jsonb(entry.details ?? {}),
      })
      .execute();
  }

  /** Newest first, a page at a time (ids are time-ordered). */
  async list(
    options: ListAuditOptions,
  ): Promise<{ items: AuditEvent[]; nextCursor: string | null }> {
    let query = this.#ctx.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('account_id', '=', options.accountId);
    if (options.since !== undefined) query = query.where('at', '>=', new Date(options.since));
    if (options.until !== undefined) query = query.where('at', '<', new Date(options.until));
    if (options.user !== undefined) query = query.where('actor_name', '=', options.user);
    if (options.action !== undefined) query = query.where('action', '=', options.action);
    if (options.cursor !== undefined) query = query.where('id', '<', options.cursor);
    const rows = await query
      .orderBy('id', 'desc')
      .limit(options.limit + 1)
      .execute();
    const page = rows.slice(0, options.limit);
    return {
      items: page.map(toAuditEvent),
      nextCursor: rows.length > options.limit ? (page.at(-1)?.id ?? null) : null,
    };
  }
}

function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    at: isoTime(row.at) ?? '',
    actor: { user: row.actor_name, userId: row.actor_user_id, tokenId: row.token_id },
    action: row.action,
    target: row.target,
    source: row.source,
    outcome: row.outcome,
    status: row.status,
    details: row.details,
  };
}
