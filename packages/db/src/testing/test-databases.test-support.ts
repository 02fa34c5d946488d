/**
 * Every repository test runs on both databases Sluice supports (STYLE.md §9, Backstage's
 * `TestDatabases`). `useTestDatabases()` gives a test file fresh, migrated databases:
 * - PGlite: an in-memory instance loaded from a migrated template (see pglite-template.ts);
 * - PostgreSQL: one throwaway server per process (`startPostgres`, or
 *   SLUICE_TEST_DATABASE_URL), migrations applied once to a template database, then
 *   `CREATE DATABASE … TEMPLATE …` for each test.
 *
 * ```ts
 * const databases = useTestDatabases();
 * databases.test('round-trips a build', async (database) => { ... }); // one test per kind
 * ```
 * @module
 */
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { createTestDatabase, makeTempDir, runPsql, startPostgres } from '@sluice/testkit';
import type { PostgresServer, TempDir } from '@sluice/testkit';
import type { Database, DatabaseKind, OpenDatabaseOptions } from '../database.js';
import { openDatabase } from '../open-database.js';
import { openPgliteFromTemplate, writePgliteDataDir } from './pglite-template.js';

export const DATABASE_KINDS: readonly DatabaseKind[] = ['pglite', 'postgres'];

/**
 * This process's part of its database names on a server that test files share
 * (SLUICE_TEST_DATABASE_URL): its pid, which two processes running at once never share, and a
 * random part, since pids come round again and a killed process leaves its databases behind.
 */
const PROCESS_TAG = `${process.pid}_${randomBytes(3).toString('hex')}`;
/** Numbers the databases of every TestDatabases of the process, so no two get one name. */
let named = 0;

export interface TestDatabasesOptions {
  /** Which targets `test()` covers; both by default. */
  kinds?: readonly DatabaseKind[];
}

export interface PrepareOptions {
  /** An empty database instead: nothing migrated (PGlite: as initdb leaves it, copied). */
  empty?: boolean;
}

export interface TestDatabaseTestOptions {
  /** Per kind; default 120 s. */
  timeout?: number;
  /**
   * Of this file's kinds, those this test runs on; all of them by default. For a test whose
   * behaviour cannot depend on the database, in a file whose other tests run on both.
   */
  kinds?: readonly DatabaseKind[];
}

interface PostgresTemplate {
  server: PostgresServer;
  template: string;
}

export class TestDatabases {
  readonly kinds: readonly DatabaseKind[];
  readonly #open = new Set<Database>();
  readonly #dirs: TempDir[] = [];
  readonly #created: string[] = [];
  #postgres: Promise<PostgresTemplate> | undefined;

  private constructor(kinds: readonly DatabaseKind[]) {
    this.kinds = kinds;
  }

  static create(options: TestDatabasesOptions = {}): TestDatabases {
    return new TestDatabases(options.kinds ?? DATABASE_KINDS);
  }

  /** A fresh, migrated database of `kind`; closed by `close()` unless closed before. */
  async open(kind: DatabaseKind): Promise<Database> {
    const database =
      kind === 'pglite'
        ? await openPgliteFromTemplate()
        : await openDatabase(await this.prepare(kind));
    this.#open.add(database);
    const close = database.close.bind(database);
    return {
      ...database,
      close: async () => {
        this.#open.delete(database);
        await close();
      },
    };
  }

  /**
   * A fresh, migrated target for `openDatabase` that nothing has open yet, for tests that open
   * it themselves or in a child process: `{ url }` on PostgreSQL, `{ dataDir }` on PGlite.
   */
  async prepare(kind: DatabaseKind, options: PrepareOptions = {}): Promise<OpenDatabaseOptions> {
    if (kind === 'pglite') {
      const dir = await makeTempDir('sluice-db-');
      this.#dirs.push(dir);
      await writePgliteDataDir(dir.path, { empty: options.empty === true });
      return { dataDir: dir.path };
    }
    const { server, template } = await this.#postgresTemplate();
    const name = `sluice_t${PROCESS_TAG}_${++named}`;
    this.#created.push(name);
    if (options.empty === true) return { url: await createTestDatabase(server.url, name) };
    return { url: await createFromTemplate(server.url, name, template) };
  }

  /**
   * Registers `name (kind)` for each kind (of `options.kinds`, if given), each with a fresh
   * database closed afterwards.
   */
  test(
    name: string,
    fn: (database: Database) => Promise<void>,
    options: TestDatabaseTestOptions = {},
  ): void {
    const kinds = this.kinds.filter((kind) => options.kinds?.includes(kind) ?? true);
    if (kinds.length === 0) {
      const asked = options.kinds?.join(', ') || 'none';
      throw new Error(`"${name}" runs on ${asked}, which this file's databases are not`);
    }
    for (const kind of kinds) {
      test(`${name} (${kind})`, { timeout: options.timeout ?? 120_000 }, async () => {
        const database = await this.open(kind);
        try {
          await fn(database);
        } finally {
          await database.close();
        }
      });
    }
  }

  /** Closes what is still open, drops databases on a shared server, stops our own server. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#open].map((database) => database.close()));
    this.#open.clear();
    await Promise.all(this.#dirs.splice(0).map((dir) => dir.cleanup()));
    const postgres = await this.#postgres?.catch(() => undefined);
    this.#postgres = undefined;
    if (postgres === undefined) return;
    if (postgres.server.dir === undefined) {
      // SLUICE_TEST_DATABASE_URL: someone else's server, so leave nothing behind.
      for (const name of [...this.#created.splice(0), postgres.template]) {
        await runPsql(postgres.server.url, `drop database if exists "${name}" with (force)`);
      }
    }
    await postgres.server.stop();
  }

  #postgresTemplate(): Promise<PostgresTemplate> {
    this.#postgres ??= startPostgresTemplate();
    return this.#postgres;
  }
}

/** `TestDatabases.create(options)`, closed by an `after` hook of the calling test file. */
export function useTestDatabases(options: TestDatabasesOptions = {}): TestDatabases {
  const databases = TestDatabases.create(options);
  after(() => databases.close());
  return databases;
}

async function startPostgresTemplate(): Promise<PostgresTemplate> {
  const server = await startPostgres();
  const template = `sluice_tpl${PROCESS_TAG}_${++named}`;
  try {
    const url = await createTestDatabase(server.url, template);
    const database = await openDatabase({ url, maxConnections: 2 });
    await database.close();
    return { server, template };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** CREATE DATABASE … TEMPLATE fails while the template's last backend is still exiting. */
async function createFromTemplate(
  baseUrl: string,
  name: string,
  template: string,
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await createTestDatabase(baseUrl, name, { template });
    } catch (err) {
      const busy = err instanceof Error && /being accessed by other users/.test(err.message);
      if (!busy || attempt >= 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
