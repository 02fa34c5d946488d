/**
 * `@sluice/db/testing`: fresh, migrated databases of both kinds for tests (`useTestDatabases`).
 * It lives here rather than in `@sluice/testkit` because it needs the migrations, and
 * `@sluice/db`'s own tests import the testkit. Import it from tests only.
 * @module
 */
export { DATABASE_KINDS, TestDatabases, useTestDatabases } from './test-databases.test-support.js';
export type {
  PrepareOptions,
  TestDatabasesOptions,
  TestDatabaseTestOptions,
} from './test-databases.test-support.js';
export {
  buildPgliteTemplate,
  openPgliteFromTemplate,
  pgliteTemplate,
  writePgliteDataDir,
} from './pglite-template.js';
