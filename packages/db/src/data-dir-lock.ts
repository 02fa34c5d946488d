/**
 * One process per PGlite data directory. PGlite takes no lock of its own, and two processes
 * writing one directory corrupt it, so `dataDir/sluice.lock` holds the owner's pid. The file is
 * created with `link()`, which is atomic and fails if it exists, so it never appears half
 * written. A lock whose pid is dead is stale and taken over; so is one carrying our own pid that
 * this process did not take (a restarted container is pid 1 again).
 *
 * Limit: two processes taking over the same stale lock in the same instant can both win; the
 * window is a few system calls at start-up.
 * @module
 */
import { unlinkSync } from 'node:fs';
import { link, mkdir, readFile, realpath, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, InputError } from '@sluice/errors';
import { processAlive } from '@sluice/process';
import type { DbLogger } from './database.js';
import { PRIVATE_DIR_MODE } from './private-dir.js';

export const LOCK_FILE = 'sluice.lock';

/** Data directories this process holds, by real path. */
const held = new Set<string>();

export interface DataDirLock {
  /** The lock file. */
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): Promise<void>;
}

export interface LockDataDirOptions {
  logger?: DbLogger;
}

/** Creates `dataDir` if missing and locks it, or throws `ConflictError('SLUICE_DB_LOCKED')`. */
export async function lockDataDir(
  dataDir: string,
  options: LockDataDirOptions = {},
): Promise<DataDirLock> {
  const dir = await ensureDir(dataDir);
  const path = join(dir, LOCK_FILE);
  if (held.has(dir)) throw lockedError(dir, process.pid);
  for (let attempt = 1; ; attempt++) {
    if (await tryCreate(path)) break;
    const holder = await readHolder(path);
    if (holder !== undefined && processAlive(holder) && holder !== process.pid) {
      throw lockedError(dir, holder);
    }
    if (attempt >= 3) throw lockedError(dir, holder ?? 0);
    options.logger?.warn('taking over stale data directory lock', { dataDir: dir, pid: holder });
    await unlink(path).catch(ignoreMissing);
  }
  held.add(dir);
  return createHandle(dir, path);
}

function createHandle(dir: string, path: string): DataDirLock {
  const onExit = (): void => {
    // Best effort on process.exit() without close(); a SIGKILL leaves a stale lock instead.
    try {
      unlinkSync(path);
    } catch {
      /* already gone */
    }
  };
  process.once('exit', onExit);
  let released = false;
  return {
    path,
    release: async () => {
      if (released) return;
      released = true;
      process.removeListener('exit', onExit);
      held.delete(dir);
      if ((await readHolder(path)) === process.pid) await unlink(path).catch(ignoreMissing);
    },
  };
}

async function ensureDir(dataDir: string): Promise<string> {
  try {
    await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    return await realpath(dataDir);
  } catch (err) {
    throw new InputError(
      'SLUICE_DB_DATA_DIR_INVALID',
      `Data directory ${dataDir} cannot be created: ${(err as Error).message}`,
      { cause: err, hint: 'choose a writable directory with --data-dir' },
    );
  }
}

/** Writes a temp file with our pid, then links it into place: false if a lock exists. */
async function tryCreate(path: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(temp, `${process.pid}\n`);
  try {
    await link(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(temp).catch(ignoreMissing);
  }
}

async function readHolder(path: string): Promise<number | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function lockedError(dir: string, pid: number): ConflictError {
  return new ConflictError(
    'SLUICE_DB_LOCKED',
    `Data directory ${dir} is in use by process ${pid}`,
    {
      details: { dataDir: dir, pid },
      hint: `stop the other Sluice server or use another --data-dir; if no server runs, delete ${join(dir, LOCK_FILE)}`,
    },
  );
}

function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}
