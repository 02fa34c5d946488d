import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spareReadyPatch, spareVolumeObject } from './spare-volumes.js';
import {
  claimFacts,
  reusePatch,
  SPARE_LABEL,
  spareState,
  VOLUME_FINALIZER,
  volumeSummary,
} from './volume-objects.js';

const NOW = Date.parse('2026-11-27T09:00:00Z');
const spare = spareVolumeObject({
  name: 'sluice-vol-a1',
  storageClass: 'sluice-volumes-ci',
  provisionerName: 'sluice.io/volumes-ci',
  provisionerLabel: 'sluice.io_volumes-ci',
  path: '/var/lib/sluice/volumes/sluice-vol-a1',
  node: 'node-1',
  hostname: 'node-1.example',
  now: NOW,
});

test('a spare is a local volume in its directory, pinned to its node, pending until its directory is there', () => {
  const spec = spare['spec'] as Record<string, unknown>;
  assert.deepEqual(spec['local'], { path: '/var/lib/sluice/volumes/sluice-vol-a1' });
  assert.equal(spec['hostPath'], undefined);
  assert.deepEqual(spec['nodeAffinity'], {
    required: {
      nodeSelectorTerms: [
        {
          matchExpressions: [
            { key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1.example'] },
          ],
        },
      ],
    },
  });
  assert.equal(spec['storageClassName'], 'sluice-volumes-ci');
  assert.equal(spec['persistentVolumeReclaimPolicy'], 'Retain');
  // A claim that never exists, with a uid: the controller-manager never binds it on its own.
  const ref = spec['claimRef'] as { uid?: string; namespace?: string };
  assert.ok(ref.uid !== undefined && ref.uid !== '');
  assert.equal(spareState(spare), 'pending');
  // Deleted, it waits for the node agent to remove its directory.
  assert.deepEqual(spare.metadata.finalizers, [VOLUME_FINALIZER]);
  assert.deepEqual(spareReadyPatch(), { metadata: { labels: { [SPARE_LABEL]: 'ready' } } });
  assert.equal(volumeSummary(spare).status, 'spare');
});

test("a claim takes a spare with the spare's label dropped, its first use counted and the claim's size", () => {
  const claim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'dind-1', namespace: 'ci', uid: 'u-1', labels: { pipeline: 'p' } },
    spec: { resources: { requests: { storage: '30Gi' } } },
  };
  const ready = { ...spare, metadata: { ...spare.metadata, resourceVersion: '42' } };
  ready.metadata.labels = { ...ready.metadata.labels, [SPARE_LABEL]: 'ready' };
  const patch = reusePatch(ready, claim, claimFacts(claim), 'sluice.io_volumes-ci', {
    now: NOW,
    resize: true,
  }) as {
    metadata: { resourceVersion: string; labels: Record<string, string | null> };
    spec: { capacity?: unknown; claimRef: { uid: string } };
  };
  assert.equal(patch.metadata.resourceVersion, '42', 'guarded: a spare taken meanwhile is refused');
  assert.equal(patch.metadata.labels[SPARE_LABEL], null);
  assert.equal(patch.metadata.labels['pipeline'], 'p');
  assert.deepEqual(patch.spec.capacity, { storage: '30Gi' });
  assert.equal(patch.spec.claimRef.uid, 'u-1');
  const reused = reusePatch(ready, claim, claimFacts(claim), 'x', { now: NOW }) as {
    spec: Record<string, unknown>;
  };
  assert.equal(reused.spec['capacity'], undefined, 'a reused volume keeps its size');
});
