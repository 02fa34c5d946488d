/**
 * Webhook deliveries for tests: the JSON fixtures under test-data/webhooks, and the headers
 * each host would send with them, signed with a secret the way that host signs.
 * @module
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseWebhook } from './parse-webhook.js';
import { verifyWebhook } from './verify-webhook.js';
import type { WebhookEvent } from './webhook-event.js';
import { EVENT_HEADERS } from './webhook-headers.js';
import type { GitProvider } from './webhook-headers.js';

export const SECRET = 'It5-a-s3cret-only-the-host-knows';

/** The fixture's bytes exactly as a host would send them. */
export function fixture(name: string): string {
  return readFileSync(new URL(`../test-data/webhooks/${name}.json`, import.meta.url), 'utf8');
}

export function fixtureJson(name: string): Record<string, unknown> {
  return JSON.parse(fixture(name)) as Record<string, unknown>;
}

/** Headers as Node's http module presents them (lower-case names), signed with `secret`. */
export function deliveryHeaders(
  provider: GitProvider,
  event: string,
  rawBody: string,
  secret = SECRET,
): Record<string, string> {
  const hex = createHmac('sha256', secret).update(rawBody).digest('hex');
  const common = { 'content-type': 'application/json', 'user-agent': `${provider}-hookshot` };
  switch (provider) {
    case 'github':
      return {
        ...common,
        'x-github-event': event,
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        'x-hub-signature-256': `sha256=${hex}`,
      };
    case 'gitlab':
      return { ...common, 'x-gitlab-event': event, 'x-gitlab-token': secret };
    case 'gitea':
      return {
        ...common,
        'x-gitea-event': event,
        'x-gitea-delivery': 'f6266f16-1bf3-46a5-9ea4-602e06ead473',
        'x-gitea-signature': hex,
      };
  }
}

/** Verifies then parses a fixture delivery, as the server's webhook route does. */
export function deliver(provider: GitProvider, event: string, name: string): WebhookEvent {
  const rawBody = fixture(name);
  const headers = deliveryHeaders(provider, event, rawBody);
  assert.deepEqual(verifyWebhook({ provider, headers, rawBody, secret: SECRET }), { ok: true });
  return parseWebhook({ provider, headers, body: rawBody });
}

/** Parses `body` as `provider` would deliver `event`, unsigned: for payloads a test has edited. */
export function parseEvent(provider: GitProvider, event: string, body: unknown): WebhookEvent {
  const headers = { [EVENT_HEADERS[provider].toLowerCase()]: event };
  return parseWebhook({ provider, headers, body });
}
