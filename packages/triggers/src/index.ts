/**
 * `@sluice/triggers`: what starts a build. Git webhooks (verify, then parse into build facts
 * and `CF_*` variables), trigger branch filters, and cron schedules. No network, no database.
 * @module
 */
export { verifyWebhook } from './verify-webhook.js';
export type {
  VerifyWebhookOptions,
  WebhookProblem,
  WebhookVerification,
} from './verify-webhook.js';
export { parseWebhook, WEBHOOK_EVENT_MISSING } from './parse-webhook.js';
export type { ParseWebhookOptions } from './parse-webhook.js';
export { WEBHOOK_PAYLOAD_INVALID } from './payload-reader.js';
export type { GitProvider, WebhookHeaders } from './webhook-headers.js';
export { DELIVERY_ID_HEADERS, webhookDeliveryId } from './delivery-id.js';
export type { WebhookEvent, WebhookFacts } from './webhook-event.js';
export {
  BRANCH_FILTER_MAX_SIZE,
  checkBranchFilter,
  isRegexBranchFilter,
  matchesBranchFilter,
  TRIGGER_BRANCH_FILTER_INVALID,
} from './branch-filter.js';
export type { BranchFilterCheck } from './branch-filter.js';
export { parseCron, requireCron, CRON_INVALID } from './cron-schedule.js';
export type { CronParseResult, CronSchedule } from './cron-schedule.js';
export { nextRun, CRON_NEXT_RUN_FAILED } from './cron-next-run.js';
