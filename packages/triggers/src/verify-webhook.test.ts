import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook } from './verify-webhook.js';
import type { GitProvider } from './webhook-headers.js';
import { SECRET, deliveryHeaders, fixture } from './webhook.test-support.js';

const deliveries: [GitProvider, string, string][] = [
  ['github', 'push', 'github-push'],
  ['gitlab', 'Push Hook', 'gitlab-push'],
  ['gitea', 'push', 'gitea-push'],
];

for (const [provider, event, name] of deliveries) {
  const rawBody = fixture(name);
  const headers = deliveryHeaders(provider, event, rawBody);

  test(`${provider}: a delivery signed with the secret verifies, as string or bytes`, () => {
    assert.deepEqual(verifyWebhook({ provider, headers, rawBody, secret: SECRET }), { ok: true });
    const bytes = new TextEncoder().encode(rawBody);
    assert.deepEqual(verifyWebhook({ provider, headers, rawBody: bytes, secret: SECRET }), {
      ok: true,
    });
  });

  test(`${provider}: another secret does not verify`, () => {
    const result = verifyWebhook({ provider, headers, rawBody, secret: 'another-secret' });
    assert.equal(result.ok ? 'ok' : result.problem, 'signature-mismatch');
  });

  test(`${provider}: a missing signature header does not verify`, () => {
    const unsigned = Object.fromEntries(
      Object.entries(headers).filter(([k]) => !/signature|token/.test(k)),
    );
    const result = verifyWebhook({ provider, headers: unsigned, rawBody, secret: SECRET });
    assert.equal(result.ok ? 'ok' : result.problem, 'signature-missing');
    assert.match(
      result.ok ? '' : result.reason,
      /^Request has no X-(Hub-Signature-256|Gitlab-Token|Gitea-Signature) header$/,
    );
  });

  test(`${provider}: an empty configured secret never verifies`, () => {
    const result = verifyWebhook({ provider, headers, rawBody, secret: '' });
    assert.equal(result.ok ? 'ok' : result.problem, 'secret-missing');
  });
}

for (const provider of ['github', 'gitea'] as const) {
  test(`${provider}: a changed body does not verify (the HMAC covers every byte)`, () => {
    const rawBody = fixture(`${provider}-push`);
    const headers = deliveryHeaders(provider, 'push', rawBody);
    const changed = rawBody.replace('"deleted": false', '"deleted": true ');
    const result = verifyWebhook({ provider, headers, rawBody: `${changed} `, secret: SECRET });
    assert.equal(result.ok ? 'ok' : result.problem, 'signature-mismatch');
  });
}

test('github: a signature without the sha256= prefix or of the wrong length is malformed', () => {
  const rawBody = fixture('github-push');
  const good = deliveryHeaders('github', 'push', rawBody)['x-hub-signature-256'] ?? '';
  for (const value of [good.slice('sha256='.length), `sha1=${'0'.repeat(40)}`, `${good}00`]) {
    const result = verifyWebhook({
      provider: 'github',
      headers: { 'x-hub-signature-256': value },
      rawBody,
      secret: SECRET,
    });
    assert.deepEqual(result, {
      ok: false,
      problem: 'signature-malformed',
      reason: 'X-Hub-Signature-256 is not sha256=<64 hex digits>',
    });
  }
});

test('header names are matched case-insensitively, and a repeated header uses its first value', () => {
  const rawBody = fixture('gitea-push');
  const hex = deliveryHeaders('gitea', 'push', rawBody)['x-gitea-signature'] ?? '';
  const headers = { 'X-Gitea-Signature': [hex, 'ignored'] };
  assert.deepEqual(verifyWebhook({ provider: 'gitea', headers, rawBody, secret: SECRET }), {
    ok: true,
  });
});

test('gitlab: a token that is a prefix of the secret does not verify', () => {
  const result = verifyWebhook({
    provider: 'gitlab',
    headers: { 'x-gitlab-token': SECRET.slice(0, 10) },
    rawBody: '{}',
    secret: SECRET,
  });
  assert.equal(result.ok ? 'ok' : result.problem, 'signature-mismatch');
});
