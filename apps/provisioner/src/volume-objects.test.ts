import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeResource } from '@sluice/kube';
import { CACHE_ANNOTATIONS, REUSE_ANNOTATIONS } from '@sluice/runtime-spec';
import { cachePatch, claimFacts, expired, VOLUME_ANNOTATIONS } from './volume-objects.js';

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

test('the cache record on a claim: a reused volume with its first use, mounts and the last use before this one', () => {
  const reused = volume(2);
  reused.metadata.annotations![VOLUME_ANNOTATIONS.created] = '2026-11-20T08:00:00.000Z';
  reused.metadata.annotations![VOLUME_ANNOTATIONS.mountCount] = '3';
  reused.metadata.annotations![VOLUME_ANNOTATIONS.usedBytes] = '5242880';
  const patch = cachePatch({
    outcome: 'hit',
    reason: 'reused: the same pipeline',
    volume: reused,
    previousUseMs: NOW - 2 * DAY,
  });
  assert.deepEqual(patch, {
    metadata: {
      annotations: {
        [CACHE_ANNOTATIONS.outcome]: 'hit',
        [CACHE_ANNOTATIONS.reason]: 'reused: the same pipeline',
        [CACHE_ANNOTATIONS.volume]: 'v',
        [CACHE_ANNOTATIONS.created]: '2026-11-20T08:00:00.000Z',
        [CACHE_ANNOTATIONS.mounts]: '3',
        [CACHE_ANNOTATIONS.usedBytes]: '5242880',
        [CACHE_ANNOTATIONS.previousUse]: '2026-11-24T12:00:00.000Z',
      },
    },
  });
});

test('the cache record of a new volume has no previous use, and a stale one from an earlier claim is cleared', () => {
  const fresh = volume(undefined);
  const annotations = (
    cachePatch({ outcome: 'miss', reason: 'new: no released volume', volume: fresh }).metadata as {
      annotations: Record<string, string | null>;
    }
  ).annotations;
  assert.equal(annotations[CACHE_ANNOTATIONS.outcome], 'miss');
  assert.equal(annotations[CACHE_ANNOTATIONS.previousUse], null);
  assert.equal(annotations[CACHE_ANNOTATIONS.mounts], null, 'a volume without bookkeeping says so');
});

test("a claim's facts: its reuse keys, the default selector, and the volume it prefers when it names one", () => {
  const claim = (annotations: Record<string, string>): KubeResource => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: 'ns', uid: 'u', labels: { app: 'dind' }, annotations },
    spec: { resources: { requests: { storage: '1Gi' } } },
  });
  const named = claimFacts(
    claim({
      [REUSE_ANNOTATIONS.selector]: 'app, pipeline',
      [REUSE_ANNOTATIONS.preferVolume]: 'sluice-pv-1',
    }),
  );
  assert.deepEqual(
    [named.selector, named.prefer, named.requestBytes],
    [['app', 'pipeline'], 'sluice-pv-1', 1024 ** 3],
  );
  const plain = claimFacts(claim({ [REUSE_ANNOTATIONS.preferVolume]: '' }));
  assert.equal(plain.prefer, undefined, 'an empty name prefers nothing');
  assert.ok(plain.selector.length > 0, 'the default selector');
});
