/**
 * Migration 013: Kubernetes cluster integrations — the clusters builds deploy to, by name. A
 * cluster reachable from the control plane keeps its kubeconfig (one context, its credentials
 * encrypted with the server key like git tokens); a cluster behind the firewall keeps only where
 * it is (its runtime, namespaces and service account), its credentials never leaving it. A
 * cluster may be limited to some projects (`projects`; null: every project of the account).
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const clustersMigration: SqlMigration = {
  name: '013_clusters',
  statements: [
    `create table clusters (
      account_id text not null references accounts (id),
      name text not null,
      kind text not null check (kind in ('kubeconfig', 'behind-firewall')),
      server text not null,
      namespace text,
      kubeconfig_encrypted text,
      runtime text,
      service_account text,
      namespaces jsonb not null default '[]',
      projects jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, name)
    )`,
  ],
};
