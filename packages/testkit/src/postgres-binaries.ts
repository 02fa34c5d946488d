/**
 * Locates the machine's PostgreSQL server binaries (installing Debian's `postgresql` when they are
 * missing) and the `postgres` account the server must run as when we are root.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UnavailableError } from '@sluice/errors';
import { aptInstall } from './apt-install.js';
import { readTestkitEnv } from './config.js';
import { findExecutable, SYSTEM_BIN_DIRS } from './run-command.js';

export const POSTGRES_UNAVAILABLE = 'SLUICE_TEST_POSTGRES_UNAVAILABLE';
const DEBIAN_PG_ROOT = '/usr/lib/postgresql';

export interface UserIds {
  uid: number;
  gid: number;
}

/** Directories that may hold PostgreSQL programs: PATH, system dirs, Debian's versioned dirs. */
export function postgresSearchDirs(): string[] {
  let versions: string[] = [];
  try {
    versions = readdirSync(DEBIAN_PG_ROOT).filter((name) => /^\d+$/.test(name));
  } catch {
    // No Debian server package installed.
  }
  versions.sort((a, b) => Number(b) - Number(a));
  const debianDirs = versions.map((version) => join(DEBIAN_PG_ROOT, version, 'bin'));
  return [...readTestkitEnv().path, ...SYSTEM_BIN_DIRS, ...debianDirs];
}

/** The directory holding both `initdb` and `pg_ctl`, installing `postgresql` if needed. */
export async function findServerBinDir(log: (line: string) => void): Promise<string> {
  const found = serverBinDir();
  if (found !== undefined) return found;
  const result = await aptInstall(['postgresql'], { log });
  if (!result.ok) {
    throw new UnavailableError(
      POSTGRES_UNAVAILABLE,
      `PostgreSQL server unavailable: could not run ${result.step}`,
      {
        details: { output: result.output },
        hint: 'apt-get install -y postgresql, or set SLUICE_TEST_DATABASE_URL to a server you run',
      },
    );
  }
  const installed = serverBinDir();
  if (installed !== undefined) return installed;
  throw new UnavailableError(
    POSTGRES_UNAVAILABLE,
    'initdb and pg_ctl not found after installing postgresql',
    {
      hint: `look in ${DEBIAN_PG_ROOT}/*/bin, or set SLUICE_TEST_DATABASE_URL`,
    },
  );
}

function serverBinDir(): string | undefined {
  for (const dir of postgresSearchDirs()) {
    if (findExecutable('initdb', [dir]) && findExecutable('pg_ctl', [dir])) return dir;
  }
  return undefined;
}

/** The ids to run the server as: the `postgres` account when root, else ourselves (undefined). */
export function serverOwner(): UserIds | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    // Reported below as a missing user.
  }
  const ids = parsePasswdUser(passwd, 'postgres');
  if (ids !== undefined) return ids;
  throw new UnavailableError(
    POSTGRES_UNAVAILABLE,
    'PostgreSQL refuses to run as root and user postgres does not exist',
    {
      hint: 'apt-get install -y postgresql (creates the postgres user), or run the tests as a non-root user',
    },
  );
}

/** uid and gid of `name` in /etc/passwd text, or undefined. */
export function parsePasswdUser(passwd: string, name: string): UserIds | undefined {
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user !== name || uid === undefined || gid === undefined) continue;
    if (!/^\d+$/.test(uid) || !/^\d+$/.test(gid)) return undefined;
    return { uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}
