/**
 * Checks that a webhook request comes from the git host that knows the trigger's secret:
 * GitHub's `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`, Gitea's
 * `X-Gitea-Signature: <hex HMAC-SHA256>`, and GitLab's `X-Gitlab-Token`, which is the secret
 * itself. Every comparison is constant-time, so the response time leaks nothing about the
 * expected value. Verify the raw bytes as received, before any JSON parsing.
 * @module
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { PROVIDER_NAMES, headerValue } from './webhook-headers.js';
import type { GitProvider, WebhookHeaders } from './webhook-headers.js';

export interface VerifyWebhookOptions {
  provider: GitProvider;
  headers: WebhookHeaders;
  /** The request body exactly as received. */
  rawBody: string | Uint8Array;
  /** The trigger's webhook secret. */
  secret: string;
}

export type WebhookProblem =
  'secret-missing' | 'signature-missing' | 'signature-malformed' | 'signature-mismatch';

export type WebhookVerification =
  { ok: true } | { ok: false; problem: WebhookProblem; reason: string };

export const SIGNATURE_HEADERS: Readonly<Record<GitProvider, string>> = {
  github: 'X-Hub-Signature-256',
  gitlab: 'X-Gitlab-Token',
  gitea: 'X-Gitea-Signature',
};

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

export function verifyWebhook(options: VerifyWebhookOptions): WebhookVerification {
  const { provider, headers, rawBody, secret } = options;
  // An empty secret would let a request with an empty token through.
  if (secret === '')
    return fail(
      'secret-missing',
      `No webhook secret is configured for this ${PROVIDER_NAMES[provider]} trigger`,
    );
  const header = SIGNATURE_HEADERS[provider];
  const value = headerValue(headers, header);
  if (value === undefined) return fail('signature-missing', `Request has no ${header} header`);
  switch (provider) {
    case 'github':
      return checkHmac(header, value, 'sha256=', rawBody, secret);
    case 'gitea':
      return checkHmac(header, value, '', rawBody, secret);
    case 'gitlab':
      return sameSecret(value, secret)
        ? { ok: true }
        : fail('signature-mismatch', `${header} does not match the trigger's secret`);
  }
}

function checkHmac(
  header: string,
  value: string,
  prefix: string,
  rawBody: string | Uint8Array,
  secret: string,
): WebhookVerification {
  const hex = value.startsWith(prefix) ? value.slice(prefix.length) : undefined;
  if (hex === undefined || !HEX_SHA256.test(hex))
    return fail('signature-malformed', `${header} is not ${prefix}<64 hex digits>`);
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  if (!timingSafeEqual(expected, Buffer.from(hex, 'hex')))
    return fail(
      'signature-mismatch',
      `${header} does not match the body signed with the trigger's secret`,
    );
  return { ok: true };
}

/** Hashing both first makes the comparison constant-time even when the lengths differ. */
function sameSecret(given: string, secret: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(secret));
}

function fail(problem: WebhookProblem, reason: string): WebhookVerification {
  return { ok: false, problem, reason };
}
