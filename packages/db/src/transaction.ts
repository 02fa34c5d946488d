/**
 * Transactions that pass their handle down. On PGlite the pool has exactly one connection, and
 * the transaction holds it until it ends, so a query sent through `db` instead of `trx` inside
 * the callback waits for a connection that never frees: a silent deadlock until the pool's
 * `connectionTimeoutMs`, then `SLUICE_DB_POOL_TIMEOUT`. PostgreSQL's larger pool hides the
 * bug (the stray query just runs outside the transaction), so it shows up only on PGlite.
 * @module
 */
import type { IsolationLevel, Transaction } from 'kysely';
import { toDbError } from './db-errors.js';
import type { Executor } from './database.js';
import type { Schema } from './schema.js';

export interface WithTransactionOptions {
  isolationLevel?: IsolationLevel;
}

/**
 * Runs `fn` in a transaction: commit when it resolves, rollback when it throws (the error is
 * rethrown, translated if it came from the database).
 *
 * **Use only `trx` inside `fn`.** With PGlite's single connection, touching `db` (or anything
 * holding it) inside `fn` deadlocks; pass `trx` to every repository function you call.
 *
 * Called with a `Transaction`, it joins it: `fn` runs in the caller's transaction, so functions
 * taking an executor can use `withTransaction` whether or not one is already open.
 */
export async function withTransaction<T>(
  db: Executor,
  fn: (trx: Transaction<Schema>) => Promise<T>,
  options: WithTransactionOptions = {},
): Promise<T> {
  if (db.isTransaction) return fn(db as Transaction<Schema>);
  try {
    let builder = db.transaction();
    if (options.isolationLevel !== undefined) {
      builder = builder.setIsolationLevel(options.isolationLevel);
    }
    return await builder.execute(fn);
  } catch (err) {
    throw toDbError(err);
  }
}
