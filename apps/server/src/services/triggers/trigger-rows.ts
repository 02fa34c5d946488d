/**
 * The `triggers` table as the API shows it. Where each kind keeps what:
 * - git: `provider`, `repo`, `events`, `branch_filter`, and the webhook secret encrypted in
 *   `secret_encrypted` (associated data: the trigger id, so a value cannot be moved to another
 *   trigger). The secret never leaves this server.
 * - cron: `cron` and `next_run_at`. The branch its builds run on is kept in `variables` under
 *   `sluice.branch`: no variable can have that name (variable names are letters, digits and
 *   `_`), so it never collides with a user's variable, and `branch_filter` keeps one meaning
 *   (a filter) for every kind. It is taken out before the variables reach the API or a build.
 * @module
 */
import { TriggerEvent } from '@sluice/protocol';
import type { TriggerRow } from '@sluice/db';
import type { Trigger } from '@sluice/protocol';
import { isoTime } from '../server-context.js';

/** The reserved `variables` key holding a cron trigger's branch. */
export const CRON_BRANCH_KEY = 'sluice.branch';

/** Webhook secrets are encrypted with the trigger id as associated data. */
export function secretAssociatedData(triggerId: string): string {
  return `triggers/${triggerId}`;
}

/** A trigger's user variables, without the reserved keys. */
export function userVariables(row: Pick<TriggerRow, 'variables'>): Record<string, string> {
  const { [CRON_BRANCH_KEY]: _, ...rest } = row.variables;
  return rest;
}

export function cronBranch(row: Pick<TriggerRow, 'variables'>): string | undefined {
  return row.variables[CRON_BRANCH_KEY];
}

function isTriggerEvent(value: string): value is TriggerEvent {
  return TriggerEvent.safeParse(value).success;
}

/** Where the git host posts: absolute when the server's public URL is configured. */
export function webhookUrl(publicUrl: string | undefined, triggerId: string): string {
  return `${(publicUrl ?? '').replace(/\/+$/, '')}/api/webhooks/${triggerId}`;
}

export function toTrigger(row: TriggerRow, publicUrl: string | undefined): Trigger {
  const git = row.kind === 'git';
  return {
    id: row.id,
    pipelineId: row.pipeline_id,
    kind: row.kind,
    provider: git ? (row.provider as Trigger['provider']) : null,
    repo: row.repo,
    events: row.events.filter(isTriggerEvent),
    branchFilter: row.branch_filter,
    gitIntegration: git ? row.git_integration : null,
    branch: git ? null : (cronBranch(row) ?? null),
    cron: row.cron,
    nextRunAt: isoTime(row.next_run_at),
    enabled: row.enabled,
    variables: userVariables(row),
    webhookUrl: git ? webhookUrl(publicUrl, row.id) : null,
    createdAt: isoTime(row.created_at) ?? '',
  };
}
