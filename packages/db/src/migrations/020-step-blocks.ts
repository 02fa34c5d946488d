/**
 * Migration 020: how a block's steps run, so the build page draws them as they run.
 * `build_steps.block`: `parallel` for a parallel block (and a `matrix` or `scale` step), whose
 * steps start together; `sequential` for a typed step's group, whose steps run one after
 * another; null for a step that holds no steps (and for the rows of older builds).
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const stepBlocksMigration: SqlMigration = {
  name: '020_step_blocks',
  statements: [
    `alter table build_steps add column block text check (block in ('parallel', 'sequential'))`,
  ],
};
