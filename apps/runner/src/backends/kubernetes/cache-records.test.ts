import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CACHE_ANNOTATIONS } from '@sluice/labels';
import type { KubeClaim } from '@sluice/kube';
import { cacheRecord, graceOver, UNRECORDED_GRACE_MS } from './cache-records.js';

function claim(annotations: Record<string, string>, storageClassName?: string): KubeClaim {
  return {
    metadata: { name: 'pvc-dind-b1', uid: 'u1', annotations },
    spec: { volumeName: 'sluice-vol-u0', ...(storageClassName ? { storageClassName } : {}) },
    status: { phase: 'Bound', capacity: { storage: '10Gi' } },
  };
}

test("a claim the provisioner served: hit, its reason, the volume's first and previous use and mounts", () => {
  const record = cacheRecord(
    claim(
      {
        [CACHE_ANNOTATIONS.outcome]: 'hit',
        [CACHE_ANNOTATIONS.reason]: 'reused: the same sluice.io/pipeline',
        [CACHE_ANNOTATIONS.volume]: 'sluice-vol-u0',
        [CACHE_ANNOTATIONS.created]: '2026-11-20T08:00:00.000Z',
        [CACHE_ANNOTATIONS.previousUse]: '2026-11-26T08:00:00.000Z',
        [CACHE_ANNOTATIONS.mounts]: '4',
        [CACHE_ANNOTATIONS.usedBytes]: '1073741824',
      },
      'sluice-volumes-ns',
    ),
  );
  assert.deepEqual(record, {
    outcome: 'hit',
    reason: 'reused: the same sluice.io/pipeline',
    volume: 'sluice-vol-u0',
    claim: 'pvc-dind-b1',
    volumeCreatedAt: '2026-11-20T08:00:00.000Z',
    previousUseAt: '2026-11-26T08:00:00.000Z',
    mountCount: 4,
    usedBytes: 1073741824,
    capacity: '10Gi',
    storageClass: 'sluice-volumes-ns',
  });
});

test('a claim bound by another provisioner is unknown, naming its StorageClass and what records reuse', () => {
  const record = cacheRecord(claim({}, 'standard'));
  assert.equal(record.outcome, 'unknown');
  assert.match(record.reason, /StorageClass standard/);
  assert.match(record.reason, /--warm-volumes/);
  assert.equal(record.mountCount, null);
  assert.equal(record.volume, 'sluice-vol-u0', "the volume is the claim's, whoever made it");
});

test('garbage in the annotations is not passed on as dates or counts', () => {
  const record = cacheRecord(
    claim({
      [CACHE_ANNOTATIONS.outcome]: 'miss',
      [CACHE_ANNOTATIONS.created]: 'yesterday',
      [CACHE_ANNOTATIONS.mounts]: '-3',
      [CACHE_ANNOTATIONS.usedBytes]: '12 GB',
    }),
  );
  assert.equal(record.outcome, 'miss');
  assert.equal(record.volumeCreatedAt, null);
  assert.equal(record.mountCount, null);
  assert.equal(record.usedBytes, null);
  assert.equal(record.storageClass, null);
});

test('a bound claim without a record is reported unknown only after the grace for the record', () => {
  const since = 1_000_000;
  assert.equal(graceOver(since, since), false, 'at once: the provisioner records a moment later');
  assert.equal(graceOver(since, since + UNRECORDED_GRACE_MS - 1), false);
  assert.equal(graceOver(since, since + UNRECORDED_GRACE_MS), true);
});
