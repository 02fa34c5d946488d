/**
 * Migration 021: the elected builds old enough to be over a workflow limit, by index. Every
 * pass of the limits reads them; without it a queue of 100,000 builds elected for a runtime no
 * agent serves was read whole every 10 s, while none of them was yet old enough to matter.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const electedAgeIndexMigration: SqlMigration = {
  name: '021_elected_age_index',
  statements: [
    "create index builds_elected_created_idx on builds (created_at) where status = 'elected'",
  ],
};
