/**
 * The id a git host gives one webhook delivery and repeats when it sends that delivery again
 * (an automatic retry, a "Redeliver" click), so the receiver can start one build per delivery.
 * GitHub: `X-GitHub-Delivery`. GitLab: `Idempotency-Key` (GitLab 17.4+, the same across
 * retries), else `X-Gitlab-Event-UUID`. Gitea: `X-Gitea-Delivery`. Read only after
 * `verifyWebhook`: the id is as trustworthy as the signature over the request.
 * @module
 */
import { headerValue } from './webhook-headers.js';
import type { GitProvider, WebhookHeaders } from './webhook-headers.js';

/** Each provider's delivery id headers, the preferred first. */
export const DELIVERY_ID_HEADERS: Readonly<Record<GitProvider, readonly string[]>> = {
  github: ['X-GitHub-Delivery'],
  gitlab: ['Idempotency-Key', 'X-Gitlab-Event-UUID'],
  gitea: ['X-Gitea-Delivery'],
};

/** Longer values are not ids any host sends; they are not trusted for deduplication. */
const MAX_DELIVERY_ID_LENGTH = 200;

/** The delivery's id, or undefined when the host sent none (or something too long to be one). */
export function webhookDeliveryId(
  provider: GitProvider,
  headers: WebhookHeaders,
): string | undefined {
  for (const name of DELIVERY_ID_HEADERS[provider]) {
    const value = headerValue(headers, name);
    if (value !== undefined && value.length <= MAX_DELIVERY_ID_LENGTH) return value;
  }
  return undefined;
}
