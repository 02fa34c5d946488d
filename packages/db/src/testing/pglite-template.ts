/**
 * Fresh migrated PGlite databases for tests, fast. A new PGlite runs initdb, which takes
 * 5–10 s and ~750 MB on two cores; loading a dump of an already migrated one takes 2–3 s. The
 * dump is built once per machine and schema: it is cached in the temp dir under the migrations'
 * fingerprint and PGlite's build, so every test process after the first skips initdb; so is a
 * data directory unpacked from it, copied for tests that need one on disk.
 * @module
 */
import { cp, readFile, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import type { Database, DbLogger } from '../database.js';
import { migrateToLatest, migrationFingerprint } from '../migrations/migrate.js';
import { createPgliteHandle, PGLITE_SUBDIR } from '../pglite-database.js';

const CACHE_PREFIX = 'sluice-pglite-template-';

let template: Promise<Blob> | undefined;

/** The data directory of a migrated PGlite as a tar, from the cache or built now. */
export function pgliteTemplate(): Promise<Blob> {
  template ??= loadOrBuild().catch((err: unknown) => {
    template = undefined;
    throw err;
  });
  return template;
}

/** A new in-memory PGlite holding the migrated template, as a `Database`. */
export async function openPgliteFromTemplate(
  options: { logger?: DbLogger; connectionTimeoutMs?: number } = {},
): Promise<Database> {
  const pglite = await PGlite.create({ loadDataDir: await pgliteTemplate() });
  return createPgliteHandle(pglite, {
    logger: options.logger,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 30_000,
  });
}

/**
 * Writes the migrated template into `dataDir` as `openDatabase({ dataDir })` expects it, or with
 * `empty`, a database as initdb leaves it (nothing migrated): a copy of a data directory made
 * once per machine and schema beside the template (a file copy takes milliseconds; unpacking
 * into a new PGlite takes a second or two of CPU, and initdb five or more, each time).
 */
export async function writePgliteDataDir(
  dataDir: string,
  options: { empty?: boolean } = {},
): Promise<void> {
  // Never over a database that is there: a test restarting a server keeps its data.
  const target = join(dataDir, PGLITE_SUBDIR);
  if (await exists(join(target, 'PG_VERSION'))) {
    throw new Error(`${target} holds a database already: seed a new directory`);
  }
  await cp(await cachedDataDir(options.empty === true), target, { recursive: true });
}

const dataDirs = new Map<boolean, Promise<string>>();

/** A data directory, closed cleanly, in the temp dir: made once a machine, then reused. */
function cachedDataDir(empty: boolean): Promise<string> {
  let made = dataDirs.get(empty);
  if (made === undefined) {
    made = (async () => {
      const key = empty ? `empty-${await pgliteKey()}` : await cacheKey();
      const dir = join(tmpdir(), `${CACHE_PREFIX}${key}.dir`);
      // PG_VERSION is written by initdb: its presence marks a directory that was completed.
      if (await exists(join(dir, 'PG_VERSION'))) return dir;
      const partial = `${dir}.${process.pid}.partial`;
      const pglite = await PGlite.create(
        empty ? { dataDir: partial } : { dataDir: partial, loadDataDir: await pgliteTemplate() },
      );
      await pglite.close();
      // Another process may have finished first: either copy is the same.
      await rename(partial, dir).catch(() => rm(partial, { recursive: true, force: true }));
      return dir;
    })().catch((err: unknown) => {
      dataDirs.delete(empty);
      throw err;
    });
    dataDirs.set(empty, made);
  }
  return made;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Builds the template from scratch: initdb plus every migration. */
export async function buildPgliteTemplate(): Promise<Blob> {
  const handle = createPgliteHandle(await PGlite.create(), { connectionTimeoutMs: 30_000 });
  try {
    await migrateToLatest(handle.db);
    return await handle.pglite.dumpDataDir('gzip');
  } finally {
    await handle.close();
  }
}

async function loadOrBuild(): Promise<Blob> {
  const file = join(tmpdir(), `${CACHE_PREFIX}${await cacheKey()}.tar.gz`);
  let gzipped = await readFile(file).catch(() => undefined);
  if (gzipped === undefined) {
    gzipped = Buffer.from(await (await buildPgliteTemplate()).arrayBuffer());
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, gzipped);
    await rename(partial, file);
    await removeOtherTemplates(file);
  }
  // Kept unpacked in memory: loading a plain tar is ~30% faster than a gzipped one.
  return new Blob([gunzipSync(gzipped)], { type: 'application/x-tar' });
}

/** The schema and the PGlite build: a template from either an old schema or PGlite is useless. */
async function cacheKey(): Promise<string> {
  return `${migrationFingerprint()}-${await pgliteKey()}`;
}

/** PGlite's build, as the size of its entry module. */
async function pgliteKey(): Promise<string> {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  const { size } = await stat(entry);
  return size.toString(36);
}

/**
 * How long another schema's template is kept after its last change: a second checkout of another
 * commit may be running tests from it on this machine (its directory is copied per test).
 */
const OTHER_TEMPLATE_GRACE_MS = 60 * 60_000;

/** Templates (and their unpacked directories) of other schemas or PGlite builds, idle an hour. */
async function removeOtherTemplates(keep: string): Promise<void> {
  const dir = tmpdir();
  const keepDir = keep.replace(/\.tar\.gz$/, '.dir');
  const keepEmpty = join(dir, `${CACHE_PREFIX}empty-${await pgliteKey()}.dir`);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (!name.startsWith(CACHE_PREFIX) || path === keep || path.startsWith(keepDir)) continue;
    if (path.startsWith(keepEmpty)) continue;
    const changed = await stat(path).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (Date.now() - changed < OTHER_TEMPLATE_GRACE_MS) continue;
    if (name.endsWith('.tar.gz')) await unlink(path).catch(() => undefined);
    else if (name.endsWith('.dir')) await rm(path, { recursive: true, force: true });
  }
}
