/**
 * The `pg.Pool` as Kysely sees it, with every error translated (see db-errors.ts). Wrapping the
 * pool rather than each repository means no query can leak a driver error, including the ones
 * Kysely itself runs (begin, commit, rollback, migrations).
 *
 * On PostgreSQL, a query with parameters runs as a named prepared statement (`preparedNames`),
 * so each connection parses and plans a query's text once instead of at every call: planning
 * was a third of PostgreSQL's time under bench/load (a page of builds with their steps costs
 * 0.4 ms to plan and less to run). A pooler that keeps no prepared statements (PgBouncer before
 * 1.21 in transaction mode) turns naming off at its first lost statement, or from the start with
 * `preparedStatements: false` (the server's SLUICE_DATABASE_UNNAMED_STATEMENTS).
 * @module
 */
import { InternalError, UnavailableError } from '@sluice/errors';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { messageOf, toDbError } from './db-errors.js';
import type { DatabaseKind, PoolStats } from './database.js';

/** pg-pool's message when no client became free within `connectionTimeoutMillis`. */
const POOL_TIMEOUT = /timeout exceeded when trying to connect/i;

export interface TranslatingPoolOptions {
  kind: DatabaseKind;
  /** How long to wait for a free connection; shown in the timeout error. */
  connectionTimeoutMs: number;
  /** Names statements (PostgreSQL); PGlite's single in-process session does not need it. */
  prepare?: PreparedNames;
}

/**
 * The names of prepared statements, by query text, shared by a process's pools: one name is
 * always one text, which is what pg requires of a connection's statements. Bounded: texts
 * beyond `max` (a query built with a different number of values each time has many) run
 * unnamed, as do texts a statement could not be kept for (see `forget`).
 */
export class PreparedNames {
  readonly #names = new Map<string, string | null>();
  readonly #max: number;
  #disabled = false;

  constructor(max = 500) {
    this.#max = max;
  }

  /** The statement name for `text`, or undefined to run it unnamed. */
  nameOf(text: string): string | undefined {
    if (this.#disabled) return undefined;
    const known = this.#names.get(text);
    if (known !== undefined) return known ?? undefined;
    if (this.#names.size >= this.#max) return undefined;
    const name = `sluice_${this.#names.size}`;
    this.#names.set(text, name);
    return name;
  }

  /** `text` runs unnamed from now on (its prepared statement went stale). */
  forget(text: string): void {
    this.#names.set(text, null);
  }

  /** Every text runs unnamed from now on (a pooler between us and PostgreSQL lost a statement). */
  disable(): void {
    this.#disabled = true;
  }

  get disabled(): boolean {
    return this.#disabled;
  }
}

/** PostgreSQL refuses a prepared statement whose result's columns changed (a migration since). */
const STALE_PLAN = /cached plan must not change result type/i;

/**
 * A statement the connection should hold is missing, or one it should not is there: a pooler
 * in transaction mode (PgBouncer before 1.21) hands each transaction another server session.
 */
const LOST_STATEMENT = new Set(['26000', '42P05']);

export function createTranslatingPool(
  pool: pg.Pool,
  options: TranslatingPoolOptions,
): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, TranslatingClient>();
  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw connectFailed(err, options);
      }
      let wrapped = clients.get(client);
      if (wrapped === undefined) {
        // pg-pool listens for a client's errors only while it is idle. A connection lost under
        // a running query emits 'error' too, and with no listener Node throws it as an
        // uncaught exception: the server would die with its database. The query itself rejects
        // (translated); the event goes to the pool's handler, which logs it, once.
        client.on('error', (err: Error) => {
          if (client.listenerCount('error') === 1) pool.emit('error', err, client);
        });
        wrapped = new TranslatingClient(client, options.prepare);
        clients.set(client, wrapped);
      }
      return wrapped;
    },
    end: () => pool.end(),
  };
}

/** What `pool` holds now; `max` as it was configured. */
export function poolStats(pool: pg.Pool, max: number): PoolStats {
  return { max, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/** What Kysely sends to open and to end a transaction. */
const TRANSACTION_START = /^(begin|start transaction)\b/i;
const TRANSACTION_END = /^(commit|rollback)$/i;

class TranslatingClient implements PostgresPoolClient {
  readonly #client: pg.PoolClient;
  readonly #prepare: PreparedNames | undefined;
  /**
   * Inside a transaction a refused statement has aborted it: running the query again would
   * only fail with "current transaction is aborted" and hide the reason.
   */
  #inTransaction = false;
  /**
   * Kysely's `begin`, held back to travel with the transaction's first statement when that one
   * has no parameters (a scheduling pass's lock): one round trip instead of two. A transaction
   * that ends before any statement never reaches the server.
   */
  #heldBegin: string | undefined;

  constructor(client: pg.PoolClient, prepare: PreparedNames | undefined) {
    this.#client = client;
    this.#prepare = prepare;
  }

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') {
      // Only reached when a cursor class is configured, which openDatabase does not do.
      throw new InternalError('SLUICE_DB_QUERY_FAILED', 'Streaming queries are not configured');
    }
    return this.#run<R>(sqlOrCursor, parameters ?? []);
  }

  async #run<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    if (TRANSACTION_START.test(sql) && parameters.length === 0 && this.#heldBegin === undefined) {
      this.#heldBegin = sql;
      this.#inTransaction = true;
      return { command: 'BEGIN' as PostgresQueryResult<R>['command'], rowCount: 0, rows: [] };
    }
    const begin = this.#heldBegin;
    this.#heldBegin = undefined;
    if (begin !== undefined) {
      if (TRANSACTION_END.test(sql)) {
        this.#inTransaction = false;
        return {
          command: sql.toUpperCase() as PostgresQueryResult<R>['command'],
          rowCount: 0,
          rows: [],
        };
      }
      if (parameters.length === 0) return this.#send<R>(`${begin};\n${sql}`, []);
      await this.#send(begin, []);
    }
    return this.#send<R>(sql, parameters);
  }

  async #send<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    // Statements without parameters (begin, commit, migrations' DDL) are cheap to plan, and a
    // text of several statements cannot be prepared.
    const name = parameters.length > 0 ? this.#prepare?.nameOf(sql) : undefined;
    if (TRANSACTION_START.test(sql)) this.#inTransaction = true;
    else if (TRANSACTION_END.test(sql)) this.#inTransaction = false;
    try {
      const values = [...parameters];
      const sent = await this.#client
        .query<R & pg.QueryResultRow>({ text: sql, values, ...(name ? { name } : {}) })
        .catch((err: unknown) => {
          if (name === undefined || !(err instanceof Error)) throw err;
          if (STALE_PLAN.test(err.message)) this.#prepare?.forget(sql);
          else if (LOST_STATEMENT.has((err as { code?: string }).code ?? ''))
            this.#prepare?.disable();
          else throw err;
          // Named no more either way; the transaction's caller gets the reason and may retry.
          if (this.#inTransaction) throw err;
          return this.#client.query<R & pg.QueryResultRow>(sql, values);
        });
      // A text of several statements answers with each one's result: the last is the caller's.
      const result = Array.isArray(sent) ? (sent.at(-1) as typeof sent) : sent;
      return {
        command: result.command as PostgresQueryResult<R>['command'],
        rowCount: result.rowCount ?? 0,
        rows: result.rows,
      };
    } catch (err) {
      throw toDbError(err);
    }
  }

  release(): void {
    this.#heldBegin = undefined;
    // Never release with an error: pg-pool would destroy the client, and PGlite's single
    // session cannot be re-established behind it.
    this.#client.release();
  }
}

function connectFailed(err: unknown, options: TranslatingPoolOptions): Error {
  if (!(err instanceof Error) || !POOL_TIMEOUT.test(err.message)) return toDbError(err);
  const seconds = options.connectionTimeoutMs / 1000;
  if (options.kind === 'pglite') {
    return new InternalError(
      'SLUICE_DB_POOL_TIMEOUT',
      `No database connection became free within ${seconds} s: PGlite has one connection, so a query probably used db instead of trx inside a transaction`,
      { cause: err, hint: 'pass the transaction handle down; see withTransaction' },
    );
  }
  return new UnavailableError(
    'SLUICE_DB_POOL_TIMEOUT',
    `No database connection became free within ${seconds} s: ${messageOf(err)}`,
    { cause: err, hint: 'the database is overloaded, or transactions are held open too long' },
  );
}
