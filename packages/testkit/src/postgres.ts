/**
 * PostgreSQL for tests. Uses SLUICE_TEST_DATABASE_URL when set; otherwise starts a throwaway
 * cluster in a temp dir with the machine's `initdb`/`pg_ctl` on a free loopback port, with
 * fsync off (the data dies with the test anyway). Tests then create cheap logical databases with
 * `createTestDatabase`, as Backstage's TestDatabases does. Each cluster's directory records its
 * owner's PID; a cluster whose owner was killed (a SIGKILLed test run) is stopped and removed by
 * the next start on the machine.
 * @module
 */
import { chown, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, UnavailableError } from '@sluice/errors';
import { processAlive } from '@sluice/process';
import { childEnv, readTestkitEnv } from './config.js';
import {
  findServerBinDir,
  POSTGRES_UNAVAILABLE,
  postgresSearchDirs,
  serverOwner,
} from './postgres-binaries.js';
import type { UserIds } from './postgres-binaries.js';
import { findExecutable, runCommand, tailLines } from './run-command.js';
import type { CommandResult } from './run-command.js';
import { makeTempDir } from './temp-dir.js';
import type { TempDir } from './temp-dir.js';

export { POSTGRES_UNAVAILABLE } from './postgres-binaries.js';

export interface StartPostgresOptions {
  log?: (line: string) => void;
  /** Start a throwaway cluster even when SLUICE_TEST_DATABASE_URL is set. */
  local?: boolean;
  /** `max_connections` (PostgreSQL's default, 100, when unset): a server shared by test files. */
  maxConnections?: number;
}

export interface PostgresServer {
  /** Connection URL for the `postgres` superuser's `postgres` database. */
  url: string;
  /** The cluster's temp dir (data, socket, log); undefined when SLUICE_TEST_DATABASE_URL is used. */
  dir: string | undefined;
  /** Stops the cluster and removes its dir; a no-op for SLUICE_TEST_DATABASE_URL. */
  stop(): Promise<void>;
}

interface Cluster {
  bin: string;
  temp: TempDir;
  data: string;
  logFile: string;
  owner: UserIds | undefined;
}

export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const { databaseUrl } = readTestkitEnv();
  if (databaseUrl !== undefined && options.local !== true) {
    return { url: databaseUrl, dir: undefined, stop: () => Promise.resolve() };
  }
  const log = options.log ?? (() => undefined);
  const bin = await findServerBinDir(log);
  const owner = serverOwner();
  await sweepOrphanedClusters(bin, owner, log);
  const temp = await makeTempDir(CLUSTER_PREFIX);
  const cluster: Cluster = {
    bin,
    temp,
    data: join(temp.path, 'data'),
    logFile: join(temp.path, 'postgres.log'),
    owner,
  };
  try {
    await writeFile(join(temp.path, OWNER_FILE), `${process.pid}\n`);
    if (owner !== undefined) await chown(temp.path, owner.uid, owner.gid);
    await pg(cluster, 'initdb', [
      '-D',
      cluster.data,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    const port = await startCluster(cluster, options.maxConnections);
    let stopped: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopped ??= stopCluster(cluster));
    return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, dir: temp.path, stop };
  } catch (err) {
    await temp.cleanup();
    throw err;
  }
}

const CLUSTER_PREFIX = 'sluice-pg-';
const OWNER_FILE = 'owner.pid';

/**
 * Stops and removes the clusters whose owner process is gone. A directory without an owner file
 * is left alone: it may be one being made right now, or not ours.
 */
async function sweepOrphanedClusters(
  bin: string,
  owner: UserIds | undefined,
  log: (line: string) => void,
): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(CLUSTER_PREFIX))) {
    const path = join(tmpdir(), name);
    const pid = Number((await readFile(join(path, OWNER_FILE), 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(pid) || pid <= 0 || processAlive(pid)) continue;
    log(`stopping a test PostgreSQL left by process ${pid}, which is gone: ${path}`);
    const cluster: Cluster = {
      bin,
      temp: { path, cleanup: () => rm(path, { recursive: true, force: true }) },
      data: join(path, 'data'),
      logFile: join(path, 'postgres.log'),
      owner,
    };
    // Immediate: its data is thrown away; a stopped cluster answers "not running", also fine.
    await runPg(cluster, 'pg_ctl', ['-D', cluster.data, '-m', 'immediate', '-w', 'stop']);
    await cluster.temp.cleanup();
  }
}

async function startCluster(cluster: Cluster, maxConnections: number | undefined): Promise<number> {
  // A free port can be taken between probing and binding; try a few.
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    const settings = `-p ${port} -k '${cluster.temp.path}' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off${maxConnections === undefined ? '' : ` -c max_connections=${Math.trunc(maxConnections)}`}`;
    const args = [
      '-D',
      cluster.data,
      '-l',
      cluster.logFile,
      '-w',
      '-t',
      '60',
      '-o',
      settings,
      'start',
    ];
    const result = await runPg(cluster, 'pg_ctl', args);
    if (result.code === 0) return port;
    const log = await readFile(cluster.logFile, 'utf8').catch(() => '');
    if (attempt < 3 && /could not bind|already in use/i.test(log)) continue;
    throw pgFailed('pg_ctl start', result, tailLines(log, 20));
  }
}

async function stopCluster(cluster: Cluster): Promise<void> {
  const result = await runPg(cluster, 'pg_ctl', ['-D', cluster.data, '-m', 'fast', '-w', 'stop']);
  const log = await readFile(cluster.logFile, 'utf8').catch(() => '');
  await cluster.temp.cleanup();
  if (result.code !== 0) throw pgFailed('pg_ctl stop', result, tailLines(log, 20));
}

function runPg(cluster: Cluster, program: string, args: readonly string[]): Promise<CommandResult> {
  return runCommand(join(cluster.bin, program), args, {
    cwd: cluster.temp.path,
    env: childEnv({ LC_ALL: 'C' }),
    uid: cluster.owner?.uid,
    gid: cluster.owner?.gid,
  });
}

async function pg(cluster: Cluster, program: string, args: readonly string[]): Promise<void> {
  const result = await runPg(cluster, program, args);
  if (result.code !== 0) throw pgFailed(program, result, undefined);
}

function pgFailed(
  step: string,
  result: CommandResult,
  serverLog: string | undefined,
): UnavailableError {
  const output = result.spawnError?.message ?? tailLines(result.stderr + result.stdout, 10);
  return new UnavailableError(
    POSTGRES_UNAVAILABLE,
    `PostgreSQL test cluster failed: ${step}: ${output}`,
    {
      details: { step, serverLog },
      hint: 'check the server log in the details, or set SLUICE_TEST_DATABASE_URL to a server you run',
    },
  );
}

/** A port nobody listens on right now, chosen by the kernel. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface CreateTestDatabaseOptions {
  /** Copy this database (e.g. a migrated template) instead of template1. */
  template?: string;
}

/** Runs `CREATE DATABASE name` on the server at `baseUrl`; returns the new database's URL. */
export async function createTestDatabase(
  baseUrl: string,
  name: string,
  options: CreateTestDatabaseOptions = {},
): Promise<string> {
  checkIdentifier(name);
  let sql = `CREATE DATABASE "${name}"`;
  if (options.template !== undefined) sql += ` TEMPLATE "${checkIdentifier(options.template)}"`;
  await runPsql(baseUrl, sql);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs SQL with the `psql` CLI and returns its unaligned, tuples-only output. */
export async function runPsql(url: string, sql: string): Promise<string> {
  const psql = findExecutable('psql', postgresSearchDirs());
  if (psql === undefined) {
    throw new UnavailableError(
      POSTGRES_UNAVAILABLE,
      'psql not found on PATH or in /usr/lib/postgresql',
      {
        hint: 'apt-get install -y postgresql-client',
      },
    );
  }
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql];
  const result = await runCommand(psql, args, { env: childEnv({ PGCONNECT_TIMEOUT: '10' }) });
  if (result.code === 0) return result.stdout.trim();
  throw new UnavailableError(
    POSTGRES_UNAVAILABLE,
    `psql failed for ${JSON.stringify(sql)}: ${result.stderr.trim()}`,
    {
      details: { sql },
    },
  );
}

function checkIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new InputError(
      'SLUICE_TEST_DATABASE_NAME_INVALID',
      `Database name ${JSON.stringify(name)} must match [A-Za-z_][A-Za-z0-9_]* (at most 63 characters)`,
    );
  }
  return name;
}
