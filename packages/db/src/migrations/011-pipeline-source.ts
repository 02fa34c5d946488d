/**
 * Migration 011: a pipeline's definition may live in its repository. `pipelines.spec_template`
 * names it (Codefresh's `spec.specTemplate`: repo, path, revision, git integration); null keeps
 * the stored YAML. A build records the definition it ran: `builds.yaml`, the text (an inline
 * pipeline's at creation, a repository's once its engine has read it), `builds.yaml_revision`,
 * the commit the file was read at, and `builds.spec_template`, where its engine reads it from
 * (the revision resolved when the build was made).
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const pipelineSourceMigration: SqlMigration = {
  name: '011_pipeline_source',
  statements: [
    'alter table pipelines add column spec_template jsonb',
    'alter table builds add column yaml text',
    'alter table builds add column yaml_revision text',
    'alter table builds add column spec_template jsonb',
  ],
};
