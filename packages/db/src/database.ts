/**
 * The database handle's types: what `openDatabase` returns and takes. Kept apart from the
 * implementation so the PGlite and PostgreSQL halves can share them without a cycle.
 * @module
 */
import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';

export type DatabaseKind = 'pglite' | 'postgres';

/** Anything queries run on: the database or a transaction (pass `trx` down inside one). */
export type Executor = Kysely<Schema>;

/** Structurally the `Logger` of `@sluice/log`, which this package may not import. */
export interface DbLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

/** Called with the NOTIFY payload ('' when none). Must not throw; errors are logged. */
export type NotificationHandler = (payload: string) => void;

/** Stops one subscription; safe to call twice. */
export type Unsubscribe = () => Promise<void>;

/** The pool's connections at one moment, for metrics. */
export interface PoolStats {
  /** The most connections the pool opens: PGlite's is 1, its one session. */
  max: number;
  /** Connections open now, busy or idle. */
  total: number;
  idle: number;
  /** Queries waiting for a connection to become free. */
  waiting: number;
}

export interface Database {
  /** The query builder on the single pool. Inside a transaction use its `trx`, never this. */
  readonly db: Kysely<Schema>;
  /**
   * The query builder for passes that many requests wait on together (a scheduling pass, a read
   * coalesced for every caller asking the same thing): on PostgreSQL a small pool of its own, so
   * such a pass never queues for a connection behind the requests that wait for it; on PGlite
   * the same single session as `db`.
   */
  readonly passes: Kysely<Schema>;
  readonly kind: DatabaseKind;
  /** The main pool's connections now (in use = total - idle). Cheap: no query runs. */
  poolStats(): PoolStats;
  /**
   * Calls `handler` for each NOTIFY on `channel` (lowercase letters, digits and `_`), after the
   * notifying transaction commits. Wake-ups are hints: a long-poll must still re-read the
   * database and time out, since a notification can be lost while the listener reconnects.
   */
  subscribe(channel: string, handler: NotificationHandler): Promise<Unsubscribe>;
  /** Ends subscriptions, the pool, PGlite, and releases the data directory lock. Idempotent. */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A PostgreSQL connection URL; when set, `dataDir` and `memory` are ignored. */
  url?: string;
  /** PGlite on disk: the database lives in `dataDir/pgdata`, locked by `dataDir/sluice.lock`. */
  dataDir?: string;
  /** PGlite in memory (tests, demos): gone when closed. */
  memory?: boolean;
  logger?: DbLogger;
  /** Run pending migrations on open (the default). */
  migrate?: boolean;
  /** PostgreSQL pool size; PGlite always has exactly one connection. Default 10. */
  maxConnections?: number;
  /** How long a query waits for a free pool connection before failing. Default 30 000. */
  connectionTimeoutMs?: number;
  /**
   * PostgreSQL: a query with parameters is prepared once per connection (`PreparedNames`).
   * Default true; false for a pooler that keeps no prepared statements.
   */
  preparedStatements?: boolean;
}
