/**
 * Migration 005: each pipeline counts its builds, so a new build takes its number with one
 * `update … returning` (which locks the pipeline's row only until its transaction ends) instead
 * of locking the row and then reading `max(number)` over the pipeline's builds. Under a burst of
 * builds of one pipeline that is one statement fewer while the row is held.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const buildNumbersMigration: SqlMigration = {
  name: '005_build_numbers',
  statements: [
    'alter table pipelines add column last_build_number integer not null default 0',
    `update pipelines set last_build_number = numbers.n
      from (select pipeline_id, max(number) as n from builds group by pipeline_id) as numbers
      where numbers.pipeline_id = pipelines.id`,
  ],
};
