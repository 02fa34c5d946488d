/**
 * Migration 002: what the rest of the pipeline language needs. Build steps follow the
 * pipeline's tree (`parent`: the parallel block, typed step or matrix a step runs in) and its
 * retries (`attempt`), and record who answered an approval; control messages carry the step
 * and the person of an approve or deny; the account keeps Docker registries (passwords
 * encrypted like build secrets) and step types.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

const BUILD_STEPS = [
  'alter table build_steps add column parent text',
  'alter table build_steps add column attempt integer not null default 1',
  'alter table build_steps add column answered_by text',
];

const BUILD_CONTROL = [
  'alter table build_control add column step text',
  'alter table build_control add column actor text',
];

const REGISTRIES = `
create table registries (
  account_id text not null references accounts (id),
  name text not null,
  domain text not null,
  username text,
  password_encrypted text,
  is_default boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (account_id, name)
)`;

const STEP_TYPES = `
create table step_types (
  account_id text not null references accounts (id),
  name text not null,
  version text not null,
  document text not null,
  created_by text,
  created_at timestamptz not null default now(),
  primary key (account_id, name, version)
)`;

export const pipelineLanguageMigration: SqlMigration = {
  name: '002_pipeline_language',
  statements: [
    ...BUILD_STEPS,
    ...BUILD_CONTROL,
    REGISTRIES,
    // At most one default registry per account.
    'create unique index registries_one_default_idx on registries (account_id) where is_default',
    STEP_TYPES,
  ],
};
