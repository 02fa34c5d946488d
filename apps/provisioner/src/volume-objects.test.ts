import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeResource } from '@sluice/kube';
import { expired, VOLUME_ANNOTATIONS } from './volume-objects.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-26T12:00:00Z');

function volume(daysUnused: number | undefined, retention?: string): KubeResource {
  const annotations: Record<string, string> = {};
  if (daysUnused !== undefined)
    annotations[VOLUME_ANNOTATIONS.lastUsed] = new Date(NOW - daysUnused * DAY).toISOString();
  if (retention !== undefined) annotations[VOLUME_ANNOTATIONS.retention] = retention;
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'v', annotations } };
}

test('a released volume expires after the retention days: its own annotation first, then the default', () => {
  assert.equal(expired(volume(3), NOW, 4), false);
  assert.equal(expired(volume(5), NOW, 4), true);
  assert.equal(expired(volume(5, '7d'), NOW, 4), false, 'its claim asked for 7 days');
  assert.equal(expired(volume(8, '7'), NOW, 4), true);
  assert.equal(expired(volume(2, '1d'), NOW, 4), true);
});

test('0 days keeps volumes for ever; a volume without a last use is never expired; a bad annotation falls back', () => {
  assert.equal(expired(volume(400), NOW, 0), false);
  assert.equal(expired(volume(400, '0d'), NOW, 4), false);
  assert.equal(expired(volume(undefined), NOW, 4), false);
  assert.equal(expired(volume(5, 'a week'), NOW, 4), true);
});
