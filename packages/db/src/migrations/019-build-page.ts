/**
 * Migration 019: what the build page shows of a build's steps and who ran it.
 * `build_steps.title`: the step's `title:` (as written while planned, as the engine reported it
 * with its variables once started). `build_steps.needs`: the steps it waits for (its
 * `when.steps`, each `{ step, on }`), to draw the pipeline's graph. `builds.secret_names`: the
 * names of the secrets the build was given, shown as `****` (their values stay encrypted).
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const buildPageMigration: SqlMigration = {
  name: '019_build_page',
  statements: [
    'alter table build_steps add column title text',
    `alter table build_steps add column needs jsonb not null default '[]'::jsonb`,
    `alter table builds add column secret_names jsonb not null default '[]'::jsonb`,
  ],
};
