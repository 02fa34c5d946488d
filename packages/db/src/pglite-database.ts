/**
 * PGlite (PostgreSQL in WASM, in process) behind the same `pg.Pool` interface as PostgreSQL.
 * Rules from running it (reference/libraries.md §1):
 * - exactly one pool per PGlite instance, of size 1: PGlite has one session, and a second pool
 *   would run its queries inside the first pool's open transaction;
 * - that one connection is never destroyed and recreated behind our back (no idle timeout, no
 *   release with an error); if it ever is, the new one starts by rolling back whatever
 *   transaction the old one left open in the shared session;
 * - LISTEN goes through the pool for a moment and notifications arrive through
 *   `pglite.onNotification`, so a listener never holds the only connection.
 * @module
 */
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { UnavailableError } from '@sluice/errors';
import { lockDataDir } from './data-dir-lock.js';
import { messageOf } from './db-errors.js';
import type { DataDirLock } from './data-dir-lock.js';
import type { Database, DbLogger } from './database.js';
import { ChannelRegistry } from './notifications.js';
import { ensurePrivateDir } from './private-dir.js';
import type { Schema } from './schema.js';
import { createTranslatingPool, poolStats } from './translating-pool.js';

/** Where PGlite keeps its files inside Sluice's data directory. */
export const PGLITE_SUBDIR = 'pgdata';

export interface PgliteHandleOptions {
  logger?: DbLogger;
  connectionTimeoutMs: number;
  /** Released after PGlite closes. */
  lock?: DataDirLock;
}

/** Locks `dataDir`, then opens (or initialises) the PGlite database inside it. */
export async function openPgliteDir(
  dataDir: string,
  logger: DbLogger | undefined,
): Promise<{ pglite: PGlite; lock: DataDirLock }> {
  const lock = await lockDataDir(dataDir, { logger });
  try {
    await ensurePrivateDir(dataDir, { tighten: false, logger });
    const path = join(dataDir, PGLITE_SUBDIR);
    await ensurePrivateDir(path, { tighten: true, logger });
    return { pglite: await PGlite.create({ dataDir: path }), lock };
  } catch (err) {
    await lock.release();
    throw new UnavailableError(
      'SLUICE_DB_UNAVAILABLE',
      `PGlite could not open ${join(dataDir, PGLITE_SUBDIR)}: ${messageOf(err)}`,
      { cause: err, hint: 'check the directory is readable and was written by PGlite' },
    );
  }
}

/**
 * Wraps an open PGlite instance in a `Database`; the handle owns it from here and closes it.
 * Exported for the test harness, which opens copies of a migrated template.
 */
export function createPgliteHandle(
  pglite: PGlite,
  options: PgliteHandleOptions,
): Database & { pglite: PGlite } {
  const pool = createPglitePool(pglite, options.connectionTimeoutMs, options.logger);
  const db = new Kysely<Schema>({
    dialect: new PostgresDialect({
      pool: createTranslatingPool(pool, {
        kind: 'pglite',
        connectionTimeoutMs: options.connectionTimeoutMs,
      }),
      onCreateConnection: async (connection) => {
        if (pglite.isInTransaction()) await connection.executeQuery(CompiledQuery.raw('rollback'));
      },
    }),
  });
  const registry = new ChannelRegistry(
    {
      listen: async (channel) => void (await sql`listen ${sql.id(channel)}`.execute(db)),
      unlisten: async (channel) => void (await sql`unlisten ${sql.id(channel)}`.execute(db)),
    },
    options.logger,
  );
  const stopDispatch = pglite.onNotification((channel, payload) =>
    registry.dispatch(channel, payload),
  );
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    stopDispatch();
    registry.clear();
    try {
      await db.destroy();
      await pglite.close();
    } finally {
      await options.lock?.release();
    }
  };
  return {
    db,
    passes: db,
    kind: 'pglite',
    pglite,
    poolStats: () => poolStats(pool, 1),
    subscribe: (channel, handler) => registry.add(channel, handler),
    close: () => (closing ??= close()),
  };
}

function createPglitePool(
  pglite: PGlite,
  connectionTimeoutMs: number,
  logger: DbLogger | undefined,
): pg.Pool {
  // A fresh adapter connection per client: the one in a shared config cannot reconnect once
  // pg-pool has ended it.
  class PgliteClient extends pg.Client {
    constructor() {
      super(createPgConfig(pglite));
    }
  }
  const pool = new pg.Pool({
    Client: PgliteClient,
    max: 1,
    idleTimeoutMillis: 0,
    connectionTimeoutMillis: connectionTimeoutMs,
  });
  pool.on('error', (err) => logger?.warn('database connection failed', { error: err.message }));
  return pool;
}
