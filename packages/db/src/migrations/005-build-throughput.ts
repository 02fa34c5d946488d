/**
 * Migration 005: what creating and listing builds need when many users do both at once
 * (`bench/load`).
 * - Each pipeline counts its builds, so a new build takes its number with one `update …
 *   returning` (which locks the pipeline's row to the end of its transaction) instead of locking
 *   the row and then reading `max(number)` over the pipeline's builds: one statement fewer while
 *   the row is held, under a burst of builds of one pipeline.
 * - The builds page (`order by id desc limit n` within an account) reads its rows from an index
 *   in order instead of sorting every build of the account.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const buildThroughputMigration: SqlMigration = {
  name: '005_build_throughput',
  statements: [
    'alter table pipelines add column last_build_number integer not null default 0',
    `update pipelines set last_build_number = numbers.n
      from (select pipeline_id, max(number) as n from builds group by pipeline_id) as numbers
      where numbers.pipeline_id = pipelines.id`,
    'create index builds_account_id_idx on builds (account_id, id desc)',
  ],
};
