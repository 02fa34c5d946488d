/**
 * Migration 012: a build's state reported back on its commit (a commit status on the git host,
 * through the pipeline's git integration). One row per build that has a commit to report on,
 * written when the build is made; the reporter (commit-status-service.ts) sends the build's
 * state whenever it differs from the last one the host took, retrying with back-off, and keeps
 * what it sent and the host's last refusal.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const commitStatusesMigration: SqlMigration = {
  name: '012_commit_statuses',
  statements: [
    `create table commit_statuses (
      build_id text primary key references builds(id) on delete cascade,
      account_id text not null,
      integration text not null,
      repo text not null,
      sha text not null,
      context text not null,
      sent_state text,
      sent jsonb not null default '[]',
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      last_error text,
      created_at timestamptz not null default now()
    )`,
    'create index commit_statuses_due_idx on commit_statuses (next_attempt_at)',
  ],
};
