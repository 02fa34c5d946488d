/**
 * The `pg.Pool` as Kysely sees it, with every error translated (see db-errors.ts). Wrapping the
 * pool rather than each repository means no query can leak a driver error, including the ones
 * Kysely itself runs (begin, commit, rollback, migrations).
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
}

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
        wrapped = new TranslatingClient(client);
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

class TranslatingClient implements PostgresPoolClient {
  readonly #client: pg.PoolClient;

  constructor(client: pg.PoolClient) {
    this.#client = client;
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
    try {
      const result = await this.#client.query(sql, [...parameters]);
      return {
        command: result.command as PostgresQueryResult<R>['command'],
        rowCount: result.rowCount ?? 0,
        rows: result.rows as R[],
      };
    } catch (err) {
      throw toDbError(err);
    }
  }

  release(): void {
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
