/**
 * Migration 006: git integrations — named credentials for a git host (GitHub, GitLab,
 * Bitbucket, Gitea or plain git) that `git-clone` steps and triggers name. The token or SSH
 * key is encrypted with the server key like build secrets and registry passwords; at most one
 * integration per account is the default. A git trigger may name its integration.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

const GIT_INTEGRATIONS = `
create table git_integrations (
  account_id text not null references accounts (id),
  name text not null,
  kind text not null check (kind in ('github', 'gitlab', 'bitbucket', 'gitea', 'git')),
  url text not null,
  username text,
  auth text not null check (auth in ('token', 'ssh-key')),
  secret_encrypted text not null,
  is_default boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (account_id, name)
)`;

export const gitIntegrationsMigration: SqlMigration = {
  name: '006_git_integrations',
  statements: [
    GIT_INTEGRATIONS,
    'create unique index git_integrations_one_default_idx on git_integrations (account_id) where is_default',
    'alter table triggers add column git_integration text',
  ],
};
