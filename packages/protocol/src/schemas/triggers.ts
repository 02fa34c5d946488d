/**
 * Build triggers: git webhooks (GitHub, GitLab, Gitea) and cron schedules. A git trigger's
 * secret is write-only: it is accepted on create, stored encrypted and never returned.
 * @module
 */
import { z } from 'zod';
import { Id, Timestamp, Variables } from './common.js';
import { GitIntegrationName } from './git-integrations.js';

export const TriggerKind = z.enum(['git', 'cron']);
export type TriggerKind = z.infer<typeof TriggerKind>;

export const GitProviderName = z.enum(['github', 'gitlab', 'gitea']);

/** `push` is a branch push, `tag` a tag push, `pull_request` a PR or GitLab merge request. */
export const TriggerEvent = z.enum(['push', 'pull_request', 'tag']);
export type TriggerEvent = z.infer<typeof TriggerEvent>;

export const Trigger = z.object({
  id: Id,
  pipelineId: Id,
  kind: TriggerKind,
  provider: GitProviderName.nullable().describe('Git triggers only'),
  repo: z.string().nullable().describe('owner/name; when set, other repositories are ignored'),
  events: z.array(TriggerEvent).describe('Git triggers only; empty for cron'),
  branchFilter: z
    .string()
    .nullable()
    .describe(
      'Git triggers only: a branch name, or a /regex/flags literal in RE2 syntax (linear time: no lookaround or backreferences)',
    ),
  gitIntegration: z
    .string()
    .nullable()
    .describe('Git triggers only: the git integration that clones the repository of its builds'),
  branch: z.string().nullable().describe('Cron triggers only: the branch each build runs on'),
  cron: z.string().nullable().describe('Cron triggers only: 5 fields or a macro, in UTC'),
  nextRunAt: Timestamp.nullable().describe('Cron triggers only'),
  enabled: z.boolean(),
  variables: Variables.describe('Added to every build this trigger starts'),
  webhookUrl: z
    .string()
    .nullable()
    .describe(
      "Git triggers only: where the git host posts; absolute once the server's public URL is set",
    ),
  createdAt: Timestamp,
});
export type Trigger = z.infer<typeof Trigger>;

const Repo = z
  .string()
  .max(255)
  .regex(/^[^/\s]+(\/[^/\s]+)+$/, 'A repository is owner/name (GitLab: group/subgroup/name)');

export const CreateGitTrigger = z.object({
  kind: z.literal('git'),
  provider: GitProviderName,
  repo: Repo.optional(),
  events: z.array(TriggerEvent).min(1),
  branchFilter: z
    .string()
    .max(1024)
    .optional()
    .describe(
      'A branch name, or a /regex/flags literal (flags i, m, s) matched by RE2 in linear time; a pattern RE2 cannot run (lookaround, backreferences) is refused with 422',
    ),
  gitIntegration: GitIntegrationName.optional().describe(
    "The account's git integration that clones the repository; 404 SLUICE_GIT_INTEGRATION_NOT_FOUND when there is none of that name",
  ),
  secret: z
    .string()
    .min(16, 'A webhook secret has at least 16 characters')
    .max(1024)
    .describe('Shared with the git host; stored encrypted and never returned'),
  variables: Variables.optional(),
});

export const CreateCronTrigger = z.object({
  kind: z.literal('cron'),
  cron: z.string().min(1).max(255).describe('minute hour day-of-month month day-of-week, UTC'),
  branch: z.string().min(1).max(255).optional(),
  variables: Variables.optional(),
});

export const CreateTrigger = z.discriminatedUnion('kind', [CreateGitTrigger, CreateCronTrigger]);
export type CreateTrigger = z.infer<typeof CreateTrigger>;

/** `duplicate`: this delivery id already started a build of the trigger within 24 hours. */
export const WebhookOutcome = z.enum(['build-created', 'ignored', 'ping', 'duplicate']);

export const WebhookResult = z.object({
  outcome: WebhookOutcome,
  buildId: Id.optional().describe(
    'The build this delivery started; for a duplicate, the build its first delivery started',
  ),
  reason: z.string().optional().describe('Why no build was created'),
});
export type WebhookResult = z.infer<typeof WebhookResult>;

/** A git host's payload: JSON, or GitHub's form encoding with the JSON in `payload`. */
export const WebhookPayload = z.unknown().describe("The git host's event payload, as sent");
