/**
 * `openDatabase`: the control plane's one way to a database. PostgreSQL when a URL is given,
 * otherwise PGlite in a locked data directory (or in memory). Either way the result is a
 * Kysely instance on a single `pg.Pool` whose errors are already Sluice errors, migrated to the
 * newest schema, plus LISTEN/NOTIFY wake-ups.
 * @module
 */
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { InputError } from '@sluice/errors';
import type { Database, DbLogger, OpenDatabaseOptions } from './database.js';
import { migrateToLatest } from './migrations/migrate.js';
import { createPgliteHandle, openPgliteDir } from './pglite-database.js';
import { PostgresListener } from './postgres-listener.js';
import type { Schema } from './schema.js';
import { createTranslatingPool, poolStats, PreparedNames } from './translating-pool.js';

const DEFAULT_CONNECTION_TIMEOUT_MS = 30_000;

/**
 * Opens the database the options name and migrates it (unless `migrate: false`). Close it with
 * `close()`; on PGlite that also releases the data directory for the next process.
 * @throws ConflictError `SLUICE_DB_LOCKED` when another live process holds `dataDir`
 * @throws UnavailableError `SLUICE_DB_UNAVAILABLE` when PostgreSQL cannot be reached
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const database = await connect(options);
  if (options.migrate === false) return database;
  try {
    const { applied } = await migrateToLatest(database.db);
    if (applied.length > 0) options.logger?.info('database migrated', { applied });
    return database;
  } catch (err) {
    await database.close().catch(() => undefined);
    throw err;
  }
}

async function connect(options: OpenDatabaseOptions): Promise<Database> {
  const connectionTimeoutMs = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
  const { logger } = options;
  if (options.url !== undefined && options.url !== '') {
    const database = openPostgres(options.url, options);
    logger?.info('database opened', { kind: 'postgres' });
    return database;
  }
  if (options.dataDir !== undefined && options.dataDir !== '') {
    const { pglite, lock } = await openPgliteDir(options.dataDir, logger);
    logger?.info('database opened', { kind: 'pglite', dataDir: options.dataDir });
    return createPgliteHandle(pglite, { logger, connectionTimeoutMs, lock });
  }
  if (options.memory === true) {
    const pglite = await PGlite.create();
    logger?.info('database opened', { kind: 'pglite', memory: true });
    return createPgliteHandle(pglite, { logger, connectionTimeoutMs });
  }
  throw new InputError(
    'SLUICE_DB_OPTIONS_INVALID',
    'No database given: set a PostgreSQL URL, a data directory, or memory',
    { hint: 'set DATABASE_URL, or pass --data-dir' },
  );
}

function openPostgres(url: string, options: OpenDatabaseOptions): Database {
  const connectionTimeoutMs = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
  const max = options.maxConnections ?? 10;
  const prepare = options.preparedStatements === false ? undefined : new PreparedNames();
  const open = (size: number): { pool: pg.Pool; db: Kysely<Schema> } => {
    const pool = new pg.Pool({
      connectionString: url,
      max: size,
      connectionTimeoutMillis: connectionTimeoutMs,
    });
    // Idle clients that lose their server emit 'error' on the pool; unhandled, it would crash.
    pool.on('error', (err) => logWarn(options.logger, err));
    const db = new Kysely<Schema>({
      dialect: new PostgresDialect({
        pool: createTranslatingPool(pool, { kind: 'postgres', connectionTimeoutMs, prepare }),
      }),
    });
    return { pool, db };
  };
  const { pool, db } = open(max);
  const passes = open(PASS_CONNECTIONS).db;
  const listener = new PostgresListener(url, options.logger);
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    try {
      await listener.close();
    } finally {
      await Promise.all([db.destroy(), passes.destroy()]);
    }
  };
  return {
    db,
    passes,
    kind: 'postgres',
    poolStats: () => poolStats(pool, max),
    subscribe: (channel, handler) => listener.subscribe(channel, handler),
    close: () => (closing ??= close()),
  };
}

/**
 * The connections of `Database.passes`: a scheduling pass and two shared reads can run at once;
 * few enough to cost PostgreSQL little next to the main pool.
 */
const PASS_CONNECTIONS = 3;

function logWarn(logger: DbLogger | undefined, err: Error): void {
  logger?.warn('database connection failed', { error: err.message });
}
