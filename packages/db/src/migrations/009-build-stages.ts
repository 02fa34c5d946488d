/**
 * Migration 009: stages. A build keeps its pipeline's `stages:` list as it was when the build
 * was created (the order the UI groups steps in), and each step row the stage it belongs to.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const buildStagesMigration: SqlMigration = {
  name: '009_build_stages',
  statements: [
    "alter table builds add column stages jsonb not null default '[]'::jsonb",
    'alter table build_steps add column stage text',
  ],
};
