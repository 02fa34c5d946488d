// A throwaway PostgreSQL cluster from the test kit (or a database made in
// SLUICE_TEST_DATABASE_URL) for a bench's server, with autovacuum looking at its tables every
// BENCH_PG_AUTOVACUUM_NAPTIME seconds. bench/load and bench/retention use it.
import { join } from 'node:path';
import { createTestDatabase, runPsql, startPostgres } from '@sluice/testkit';

/**
 * How often the throwaway cluster's autovacuum looks for tables to analyze, in seconds. The
 * builds table grows from empty to ~20,000 rows within the run: with PostgreSQL's default (60 s)
 * no analyze runs inside the window and every plan is made for an empty table (a page of builds
 * then sorts every build of the account), which no long-running server sees. 1 s lets the
 * statistics follow the table as they follow a production one. BENCH_PG_AUTOVACUUM_NAPTIME=60
 * measures the default.
 */
export const AUTOVACUUM_NAPTIME = Number(process.env.BENCH_PG_AUTOVACUUM_NAPTIME ?? 1);

/** A database `name` on a throwaway cluster; `cleanup` drops it and stops the cluster. */
export async function openPostgres(name) {
  const pg = await startPostgres();
  if (pg.dir !== undefined) {
    await runPsql(pg.url, `ALTER SYSTEM SET autovacuum_naptime = ${AUTOVACUUM_NAPTIME}`);
    await runPsql(pg.url, 'SELECT pg_reload_conf()');
  }
  const tcpUrl = await createTestDatabase(pg.url, name);
  // BENCH_PG_SOCKET=1: the server reaches a throwaway cluster over its Unix socket instead of TCP.
  const url =
    process.env.BENCH_PG_SOCKET === '1' && pg.dir !== undefined
      ? `${tcpUrl}?host=${encodeURIComponent(pg.dir)}`
      : tcpUrl;
  return {
    url,
    /** psql's URL of the database (TCP), for the bench's own queries. */
    tcpUrl,
    /** The throwaway cluster's data directory (its CPU is measured), else undefined. */
    dataDir: pg.dir === undefined ? undefined : join(pg.dir, 'data'),
    cleanup: async () => {
      if (pg.dir === undefined) await runPsql(pg.url, `DROP DATABASE IF EXISTS "${name}"`);
      await pg.stop();
    },
  };
}
