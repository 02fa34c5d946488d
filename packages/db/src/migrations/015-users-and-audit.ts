/**
 * Migration 015: users with roles and an audit log (docs/access.md). A user's `role` replaces
 * `is_admin` (`viewer` < `member` < `admin`; the first admin stays an admin, everyone else was a
 * user with every right but the administrator's and becomes a `member`); `projects` limits a
 * member or viewer to some projects by name (null: every project; an empty list: none). A user
 * token's `scope` (`read`, `run`, `admin`) is the most of its user's rights it carries; tokens
 * made before carried them all. `audit_events` records who did what: no foreign key to users,
 * so the history outlives them, and never a secret or a token's value.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const usersAndAuditMigration: SqlMigration = {
  name: '015_users_and_audit',
  statements: [
    `alter table users add column role text not null default 'viewer'
      check (role in ('viewer', 'member', 'admin'))`,
    `update users set role = case when is_admin then 'admin' else 'member' end`,
    `alter table users drop column is_admin`,
    `alter table users add column projects jsonb`,
    `alter table api_tokens add column scope text check (scope in ('read', 'run', 'admin'))`,
    `update api_tokens set scope = 'admin' where kind = 'user'`,
    `create table audit_events (
      id text primary key,
      account_id text not null references accounts (id),
      at timestamptz not null default now(),
      actor_user_id text,
      actor_name text,
      token_id text,
      action text not null,
      target text not null,
      source text,
      outcome text not null check (outcome in ('succeeded', 'denied', 'failed')),
      status integer,
      details jsonb not null default '{}'
    )`,
    `create index audit_events_account_id on audit_events (account_id, id desc)`,
  ],
};
