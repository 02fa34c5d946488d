import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BuildCache } from '@sluice/protocol';
import { describeCache } from './remote-build-report.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');

test('a cache hit in one line: the volume, its age, the previous build, builds, size and why', () => {
  const cache: BuildCache = {
    outcome: 'hit',
    reason: 'reused: the same sluice.io/pipeline',
    volume: 'sluice-vol-1',
    claim: 'pvc-dind-b',
    volumeCreatedAt: '2026-11-24T12:00:00Z',
    previousUseAt: '2026-11-27T10:00:00Z',
    mountCount: 5,
    usedBytes: 3_435_973_837,
    capacity: '20Gi',
    storageClass: 'sluice-volumes-ci',
  };
  assert.equal(
    describeCache(cache, NOW),
    'hit: volume sluice-vol-1, made 3d ago, previous build 2h ago, 5 builds, 3.2 GiB cached, 20Gi (reused: the same sluice.io/pipeline)',
  );
});

test('a record with nothing known but the claim says so, and sizes read as people write them', () => {
  const cache: BuildCache = {
    outcome: 'unknown',
    reason: 'the volume came from StorageClass standard',
    volume: null,
    claim: 'pvc-dind-b',
    volumeCreatedAt: null,
    previousUseAt: null,
    mountCount: null,
    usedBytes: null,
    capacity: null,
    storageClass: 'standard',
  };
  assert.equal(
    describeCache(cache, NOW),
    'unknown: claim pvc-dind-b (the volume came from StorageClass standard)',
  );
});
