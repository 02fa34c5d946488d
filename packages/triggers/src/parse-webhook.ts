/**
 * A verified webhook request → what it means for a build: the event header picks the reader,
 * the payload fills `BuildFacts` and the `CF_*` trigger variables. Call `verifyWebhook` on the
 * raw body first; this function trusts its input's origin, not its shape.
 * @module
 */
import { InputError } from '@sluice/errors';
import { parseGitHubEvent } from './github-webhook.js';
import { parseGiteaEvent } from './gitea-webhook.js';
import { parseGitLabEvent } from './gitlab-webhook.js';
import { WEBHOOK_PAYLOAD_INVALID } from './payload-reader.js';
import { EVENT_HEADERS, PROVIDER_NAMES, headerValue } from './webhook-headers.js';
import type { GitProvider, WebhookHeaders } from './webhook-headers.js';
import type { WebhookEvent } from './webhook-event.js';

export const WEBHOOK_EVENT_MISSING = 'SLUICE_WEBHOOK_EVENT_MISSING';

export interface ParseWebhookOptions {
  provider: GitProvider;
  headers: WebhookHeaders;
  /**
   * The parsed JSON payload, or the raw body (string or bytes): JSON, or GitHub's
   * `application/x-www-form-urlencoded` form with the JSON in its `payload` field.
   */
  body: unknown;
}

export function parseWebhook(options: ParseWebhookOptions): WebhookEvent {
  const { provider, headers } = options;
  const header = EVENT_HEADERS[provider];
  const event = headerValue(headers, header);
  if (event === undefined)
    throw new InputError(
      WEBHOOK_EVENT_MISSING,
      `${PROVIDER_NAMES[provider]} webhook request has no ${header} header`,
      { details: { provider, header } },
    );
  const body = decodeBody(options.body, headers, `${PROVIDER_NAMES[provider]} ${event}`);
  switch (provider) {
    case 'github':
      return parseGitHubEvent(event, body);
    case 'gitlab':
      return parseGitLabEvent(event, body);
    case 'gitea':
      return parseGiteaEvent(event, body);
  }
}

function decodeBody(body: unknown, headers: WebhookHeaders, source: string): unknown {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return body;
  let text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const contentType = headerValue(headers, 'Content-Type') ?? '';
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    const payload = new URLSearchParams(text).get('payload');
    if (payload === null)
      throw new InputError(WEBHOOK_PAYLOAD_INVALID, `${source} form body has no payload field`, {
        details: { source, path: 'payload' },
      });
    text = payload;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new InputError(WEBHOOK_PAYLOAD_INVALID, `${source} payload is not valid JSON`, {
      cause: err,
      details: { source },
    });
  }
}
