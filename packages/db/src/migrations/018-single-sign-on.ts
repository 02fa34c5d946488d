/**
 * Migration 018: single sign-on (docs/access.md). A user made by the identity provider keeps
 * its issuer and their subject there, by which they are found at every sign-in (a name may
 * change at the provider; the subject does not). `sign_in_flows` holds what a sign-in needs
 * between two requests, used once: an OpenID Connect flow in flight (its PKCE verifier, state
 * and nonce) and `sluice auth login`'s one-time codes, each under the SHA-256 of its key.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const singleSignOnMigration: SqlMigration = {
  name: '018_single_sign_on',
  statements: [
    'alter table users add column oidc_issuer text',
    'alter table users add column oidc_subject text',
    `create unique index users_oidc_identity on users (oidc_issuer, oidc_subject)
      where oidc_issuer is not null`,
    `create table sign_in_flows (
      key_hash text primary key,
      kind text not null check (kind in ('oidc', 'cli-code')),
      data jsonb not null,
      expires_at timestamptz not null
    )`,
    'create index sign_in_flows_expires_at on sign_in_flows (expires_at)',
  ],
};
