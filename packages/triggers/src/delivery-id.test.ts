import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webhookDeliveryId } from './delivery-id.js';

test('each provider names its delivery id in its own header, read case-insensitively', () => {
  const id = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
  assert.equal(webhookDeliveryId('github', { 'x-github-delivery': id }), id);
  assert.equal(webhookDeliveryId('gitea', { 'X-Gitea-Delivery': [id, 'second'] }), id);
  assert.equal(webhookDeliveryId('gitlab', { 'x-gitlab-event-uuid': id }), id);
  assert.equal(
    webhookDeliveryId('gitlab', { 'idempotency-key': 'key-1', 'x-gitlab-event-uuid': id }),
    'key-1',
    "GitLab's Idempotency-Key stays the same across retries, so it comes first",
  );
});

test('no id, the header of another host, a blank or an overlong value gives no id', () => {
  assert.equal(webhookDeliveryId('github', {}), undefined);
  assert.equal(webhookDeliveryId('github', { 'x-gitea-delivery': 'abc' }), undefined);
  assert.equal(webhookDeliveryId('gitea', { 'x-gitea-delivery': '  ' }), undefined);
  assert.equal(webhookDeliveryId('github', { 'x-github-delivery': 'x'.repeat(201) }), undefined);
});
