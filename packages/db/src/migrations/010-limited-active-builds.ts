/**
 * Migration 010: a pipeline's active builds by index. A scheduling pass counts active builds
 * only where a concurrency limit needs them: the account's when it has a limit, else those of
 * its pipelines that have one, which this partial index finds without reading the pipeline's
 * history.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const limitedActiveBuildsMigration: SqlMigration = {
  name: '010_limited_active_builds',
  statements: [
    `create index builds_pipeline_active_idx on builds (pipeline_id)
      where status in ('elected', 'running', 'pending-approval')`,
  ],
};
