/**
 * Migration 003: the webhook deliveries each git trigger has started a build for, by the git
 * host's delivery id (`X-GitHub-Delivery`, GitLab's `Idempotency-Key`, `X-Gitea-Delivery`), so
 * a delivery sent again (a retry, a "Redeliver" click, a replay) starts no second build. Rows
 * older than the deduplication window are pruned by the server.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

const WEBHOOK_DELIVERIES = `
create table webhook_deliveries (
  trigger_id text not null references triggers (id) on delete cascade,
  delivery_id text not null,
  build_id text references builds (id) on delete set null,
  received_at timestamptz not null,
  primary key (trigger_id, delivery_id)
)`;

export const webhookDeliveriesMigration: SqlMigration = {
  name: '003_webhook_deliveries',
  statements: [
    WEBHOOK_DELIVERIES,
    // Pruning deletes by age across every trigger.
    'create index webhook_deliveries_received_at_idx on webhook_deliveries (received_at)',
  ],
};
