/**
 * Applies the migrations with Kysely's `Migrator` (its lock table serialises concurrent
 * servers; PostgreSQL's transactional DDL makes each migration all-or-nothing).
 * @module
 */
import { createHash } from 'node:crypto';
import { DEFAULT_MIGRATION_TABLE, Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { InternalError, isSluiceError } from '@sluice/errors';
import { messageOf } from '../db-errors.js';
import type { Schema } from '../schema.js';
import { controlPlaneMigration } from './001-control-plane.js';
import { pipelineLanguageMigration } from './002-pipeline-language.js';
import { webhookDeliveriesMigration } from './003-webhook-deliveries.js';
import { workflowLimitsMigration } from './004-workflow-limits.js';
import { buildThroughputMigration } from './005-build-throughput.js';
import { gitIntegrationsMigration } from './006-git-integrations.js';
import { buildCacheMigration } from './007-build-cache.js';
import { buildAnnotationsMigration } from './008-build-annotations.js';
import { buildStagesMigration } from './009-build-stages.js';
import { schedulingIndexesMigration } from './010-scheduling-indexes.js';
import { pipelineSourceMigration } from './011-pipeline-source.js';
import { commitStatusesMigration } from './012-commit-statuses.js';
import { clustersMigration } from './013-clusters.js';
import { buildRetentionMigration } from './014-build-retention.js';
import { usersAndAuditMigration } from './015-users-and-audit.js';
import { contentDigestsMigration } from './016-content-digests.js';
import { sessionsMigration } from './017-sessions.js';
import { singleSignOnMigration } from './018-single-sign-on.js';
import { buildPageMigration } from './019-build-page.js';
import { stepBlocksMigration } from './020-step-blocks.js';
import { electedAgeIndexMigration } from './021-elected-age-index.js';
import type { SqlMigration } from './sql-migration.js';

/** Every migration, in apply order. */
export const MIGRATIONS: readonly SqlMigration[] = [
  controlPlaneMigration,
  pipelineLanguageMigration,
  webhookDeliveriesMigration,
  workflowLimitsMigration,
  buildThroughputMigration,
  gitIntegrationsMigration,
  buildCacheMigration,
  buildAnnotationsMigration,
  buildStagesMigration,
  schedulingIndexesMigration,
  pipelineSourceMigration,
  commitStatusesMigration,
  clustersMigration,
  buildRetentionMigration,
  usersAndAuditMigration,
  contentDigestsMigration,
  sessionsMigration,
  singleSignOnMigration,
  buildPageMigration,
  stepBlocksMigration,
  electedAgeIndexMigration,
];

export interface MigrateResult {
  /** Names applied by this call, in order; empty when the schema was already current. */
  applied: string[];
}

/** Brings the schema up to the newest migration; a failure rolls that migration back. */
export async function migrateToLatest(
  db: Kysely<Schema>,
  migrations: readonly SqlMigration[] = MIGRATIONS,
): Promise<MigrateResult> {
  if (await allApplied(db, migrations)) return { applied: [] };
  const migrator = new Migrator({ db, provider: providerFor(migrations) });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    if (isSluiceError(error) && error.category === 'unavailable') throw error;
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    throw new InternalError(
      'SLUICE_DB_MIGRATION_FAILED',
      failed === undefined
        ? `Migrations could not run: ${messageOf(error)}`
        : `Migration ${failed} failed: ${messageOf(error)}`,
      {
        cause: error,
        details: { migration: failed },
        hint: 'a database migrated by a newer Sluice cannot be opened by an older one',
      },
    );
  }
  return {
    applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName),
  };
}

/**
 * Whether the database has exactly these migrations recorded: then there is nothing to do, and
 * the server starts without the Migrator's catalogue reads and lock (about a quarter second of
 * CPU on PGlite). Anything else (a new database, one migrated by an older or a newer Sluice)
 * goes through the Migrator, which applies what is missing or says what is wrong.
 */
async function allApplied(
  db: Kysely<Schema>,
  migrations: readonly SqlMigration[],
): Promise<boolean> {
  const { rows } = await sql<{ present: boolean }>`
    select to_regclass(${DEFAULT_MIGRATION_TABLE}) is not null as present`.execute(db);
  if (rows[0]?.present !== true) return false;
  const recorded = await sql<{ name: string }>`
    select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
  const names = new Set(recorded.rows.map((row) => row.name));
  return names.size === migrations.length && migrations.every((m) => names.has(m.name));
}

/** A hash of the migrations' names and SQL: equal fingerprints mean equal schemas. */
export function migrationFingerprint(migrations: readonly SqlMigration[] = MIGRATIONS): string {
  return createHash('sha256').update(JSON.stringify(migrations)).digest('hex').slice(0, 16);
}

function providerFor(migrations: readonly SqlMigration[]): MigrationProvider {
  return {
    getMigrations: () => {
      const byName: Record<string, Migration> = {};
      for (const migration of migrations) byName[migration.name] = toKysely(migration);
      return Promise.resolve(byName);
    },
  };
}

function toKysely(migration: SqlMigration): Migration {
  return {
    up: async (db) => {
      for (const statement of migration.statements) await sql.raw(statement).execute(db);
    },
  };
}
