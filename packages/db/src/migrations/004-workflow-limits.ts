/**
 * Migration 004: what the control plane needs to enforce a runtime's `workflowLimits` from the
 * database alone (so a restarted server, or a second one, picks up where the last pass was), in
 * server time rather than the engine's clock: when the engine started, when it last reported an
 * event, when the pipeline's post-steps (its `on_success`/`on_fail`/`on_finish` hooks) began,
 * and a stop the control plane asked for (a limit or a cancel) with the status and reason the
 * build is to end with.
 * @module
 */
import type { SqlMigration } from './sql-migration.js';

export const workflowLimitsMigration: SqlMigration = {
  name: '004_workflow_limits',
  statements: [
    `alter table builds
      add column engine_started_at timestamptz,
      add column engine_event_at timestamptz,
      add column post_steps_started_at timestamptz,
      add column stop_requested_at timestamptz,
      add column stop_status text check (stop_status in ('terminated', 'error')),
      add column stop_reason text`,
    // The limits pass reads only builds that are still active.
    `create index builds_active_idx on builds (status)
      where status in ('elected', 'running', 'pending-approval')`,
  ],
};
