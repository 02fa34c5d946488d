/**
 * Migration 017: browser sessions and passwords (docs/access.md). `sessions` holds a sign-in of
 * the web UI: the SHA-256 of the cookie's value (never the value), its user (removing the user
 * removes their sessions), when it started, when it must end whatever happens (`expires_at`),
 * when it was last used (the idle limit counts from there), and where from. `users.password`
 * is the scrypt hash of a user's password with its salt and parameters (`scrypt$N$r$p$salt$hash`),
 * null for users who sign in otherwise. `audit_events (at)` lets retention delete by age.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const sessionsMigration: SqlMigration = {
  name: '017_sessions',
  statements: [
    `create table sessions (
      id text primary key,
      id_hash text not null unique,
      account_id text not null references accounts (id),
      user_id text not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      expires_at timestamptz not null,
      ip text,
      user_agent text
    )`,
    'create index sessions_user_id_idx on sessions (user_id)',
    'create index sessions_expires_at_idx on sessions (expires_at)',
    'alter table users add column password text',
    'create index audit_events_at_idx on audit_events (at)',
  ],
};
