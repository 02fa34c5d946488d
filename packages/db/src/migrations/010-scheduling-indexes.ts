/**
 * Migration 010: what a scheduling pass reads, by index. Its pending builds: an account's few
 * pending builds among its many others (under bench/load the pass's read came to scan every
 * build of the account, 20 ms at 10,000, with a plan made while the table was small). Active
 * builds are counted only where a concurrency limit needs them: the account's when it has a
 * limit, else those of its pipelines that have one, found without reading their history.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const schedulingIndexesMigration: SqlMigration = {
  name: '010_scheduling_indexes',
  statements: [
    "create index builds_pending_idx on builds (account_id, id) where status = 'pending'",
    `create index builds_pipeline_active_idx on builds (pipeline_id)
      where status in ('elected', 'running', 'pending-approval')`,
  ],
};
