/**
 * Migration 016: digests of what the control plane must recognise again without reading it
 * whole. `webhook_bodies`: the SHA-256 of each signed webhook body that started a build, per
 * trigger, so the same signed bytes start one build whatever delivery id comes with them (a
 * delivery id is not signed); rows older than the delivery window are pruned by the server.
 * `step_types.digest`: the SHA-256 of each step-type document, by which every server keeps the
 * document parsed in memory and knows, from a small column read with the pipeline, whether what
 * it holds is still what is stored (a change through another server included).
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const contentDigestsMigration: SqlMigration = {
  name: '016_content_digests',
  statements: [
    `create table webhook_bodies (
      trigger_id text not null references triggers (id) on delete cascade,
      digest text not null,
      build_id text references builds (id) on delete set null,
      received_at timestamptz not null,
      primary key (trigger_id, digest)
    )`,
    // Pruning deletes by age across every trigger.
    'create index webhook_bodies_received_at_idx on webhook_bodies (received_at)',
    'alter table step_types add column digest text',
    `update step_types set digest = encode(sha256(convert_to(document, 'UTF8')), 'hex')`,
    'alter table step_types alter column digest set not null',
  ],
};
