/**
 * The embedded database's directories are private to the user the server runs as: the data
 * directory holds the server key and the admin token beside the database, and anyone who can
 * read `pgdata` can read every secret's ciphertext and every token hash. New directories are
 * made 0700. An existing `pgdata` (made 0755 by an older Sluice) is tightened, since only Sluice
 * writes there; an existing data directory is only warned about, since `--data-dir` may name a
 * directory that is not ours to change.
 * @module
 */
import { chmod, mkdir, stat } from 'node:fs/promises';
import type { DbLogger } from './database.js';

export const PRIVATE_DIR_MODE = 0o700;

export interface EnsurePrivateDirOptions {
  /** Change an existing directory's mode to 0700 (else only warn when others can enter it). */
  tighten: boolean;
  logger?: DbLogger;
}

/** Creates `path` (and missing parents) 0700; handles an existing one as `options` says. */
export async function ensurePrivateDir(
  path: string,
  options: EnsurePrivateDirOptions,
): Promise<void> {
  await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  const mode = (await stat(path)).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  const was = `0${mode.toString(8)}`;
  if (options.tighten) {
    await chmod(path, PRIVATE_DIR_MODE);
    options.logger?.warn('database directory was open to other users: made 0700', { path, was });
  } else {
    options.logger?.warn('data directory is open to other users', {
      path,
      mode: was,
      hint: `chmod 700 ${path}`,
    });
  }
}
