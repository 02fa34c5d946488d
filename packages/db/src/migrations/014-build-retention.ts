/**
 * Migration 014: builds can be deleted. A pipeline's `retention` (`{ days?, builds? }`; null: the
 * server's default) says how long its finished builds are kept; the retention pass and the
 * deletes of builds, pipelines and projects remove builds in small batches through the build
 * store. Deleting a build sets `webhook_deliveries.build_id` to null: without an index each
 * deleted build would scan that table.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const buildRetentionMigration: SqlMigration = {
  name: '014_build_retention',
  statements: [
    'alter table pipelines add column retention jsonb',
    'create index webhook_deliveries_build_idx on webhook_deliveries (build_id)',
  ],
};
