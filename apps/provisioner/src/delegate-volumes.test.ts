import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeResource } from '@sluice/kube';
import { CACHE_ANNOTATIONS } from '@sluice/runtime-spec';
import {
  adoptPatch,
  deleteThroughDelegatePatch,
  DELEGATE_FOR_LABEL,
  helperClaimObject,
} from './delegate-volumes.js';
import { chooseVolume } from './volume-choice.js';
import type { ClaimFacts, VolumeFacts } from './volume-choice.js';
import {
  claimFacts,
  PROVISIONER_LABEL,
  SELECTED_NODE_ANNOTATION,
  VOLUME_ANNOTATIONS,
  volumeFacts,
} from './volume-objects.js';
import { nodeMatches, volumeZone, ZONE_LABEL } from './zones.js';

const GI = 1024 ** 3;
const base = { app: 'dind', account: 'a1', pipeline: 'p1' };
const inZone = (key: string, ...zones: string[]) => [
  { matchExpressions: [{ key, operator: 'In', values: zones }] },
];

function claim(zone: string | undefined, extra: Partial<ClaimFacts> = {}): ClaimFacts {
  return {
    namespace: 'ns',
    name: 'pvc-dind-b1',
    uid: 'u1',
    labels: base,
    selector: ['app', 'account', 'pipeline'],
    sortOrder: [],
    requestBytes: 10 * GI,
    node: 'n-a',
    nodeLabels: zone === undefined ? {} : { [ZONE_LABEL]: zone },
    ...(zone === undefined ? {} : { zone }),
    ...extra,
  };
}

function disk(name: string, zone: string, extra: Partial<VolumeFacts> = {}): VolumeFacts {
  return {
    name,
    labels: base,
    capacityBytes: 10 * GI,
    lastUsedMs: 1000,
    mountCount: 1,
    inUse: false,
    retiring: false,
    placement: inZone(ZONE_LABEL, zone),
    zone,
    ...extra,
  };
}

test('a released disk serves only a claim whose node is in its zone; elsewhere a new one, saying why', () => {
  const volumes = [disk('disk-a', 'zone-a')];
  const here = chooseVolume(claim('zone-a'), volumes);
  assert.equal(here.kind === 'reuse' && here.volume.name, 'disk-a');
  assert.deepEqual(chooseVolume(claim('zone-b'), volumes), {
    kind: 'new',
    reason: 'no matching volume in zone zone-b of node n-a',
  });
  assert.equal(chooseVolume(claim(undefined), volumes).kind, 'new', 'a node with no zone');
  // The same disk in the right zone is preferred over nothing, never one across zones.
  const both = chooseVolume(claim('zone-b'), [
    disk('disk-a', 'zone-a', { lastUsedMs: 9000 }),
    disk('disk-b', 'zone-b'),
  ]);
  assert.equal(both.kind === 'reuse' && both.volume.name, 'disk-b');
});

test("a disk being released in another zone is not waited for; one in the claim's zone is", () => {
  const releasing = { inUse: true, releasing: true, claim: 'pvc-old' };
  assert.equal(chooseVolume(claim('zone-b'), [disk('disk-a', 'zone-a', releasing)]).kind, 'new');
  const wait = chooseVolume(claim('zone-a'), [disk('disk-a', 'zone-a', releasing)]);
  assert.equal(wait.kind === 'wait' && wait.volume.name, 'disk-a');
});

test('before the scheduler picked a node any zone may serve (the disk then places the pod); a disk without affinity serves any node', () => {
  const volumes = [disk('disk-a', 'zone-a')];
  const { node: _n, nodeLabels: _l, zone: _z, ...unplaced } = claim('zone-b');
  assert.equal(chooseVolume(unplaced, volumes).kind, 'reuse');
  const regional = disk('nfs', 'x', { placement: [] });
  assert.equal(chooseVolume(claim('zone-b'), [regional]).kind, 'reuse');
});

test("the driver's own topology key counts as the scheduler counts it", () => {
  const ebs = inZone('topology.ebs.csi.aws.com/zone', 'eu-west-1a');
  const node = { 'topology.ebs.csi.aws.com/zone': 'eu-west-1a', [ZONE_LABEL]: 'eu-west-1a' };
  assert.equal(nodeMatches(ebs, node), true);
  assert.equal(nodeMatches(ebs, { ...node, 'topology.ebs.csi.aws.com/zone': 'eu-west-1b' }), false);
  assert.equal(volumeZone({}, ebs), 'eu-west-1a');
  // Regional disks (two zones) have no one zone but serve both.
  const regional = inZone('topology.gke.io/zone', 'europe-west1-b', 'europe-west1-c');
  assert.equal(volumeZone({}, regional), undefined);
  assert.equal(nodeMatches(regional, { 'topology.gke.io/zone': 'europe-west1-c' }), true);
  // Any term; every expression of a term; the other operators.
  const terms = [
    {
      matchExpressions: [
        { key: 'z', operator: 'Exists' },
        { key: 'gpu', operator: 'DoesNotExist' },
        { key: 'cpu', operator: 'Gt', values: ['4'] },
        { key: 'pool', operator: 'NotIn', values: ['spot'] },
      ],
    },
    { matchExpressions: [{ key: 'cpu', operator: 'Lt', values: ['2'] }] },
  ];
  assert.equal(nodeMatches(terms, { z: '1', cpu: '8', pool: 'on-demand' }), true);
  assert.equal(nodeMatches(terms, { z: '1', cpu: '8', pool: 'spot' }), false);
  assert.equal(nodeMatches(terms, { cpu: '1' }), true, 'the second term');
  assert.equal(nodeMatches(terms, { z: '1', cpu: '8', gpu: 'yes' }), false);
  assert.equal(nodeMatches([{ matchFields: [] }], {}), false, 'an empty term matches nothing');
});

const pvc: KubeResource = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {
    name: 'pvc-dind-b1',
    namespace: 'ns',
    uid: 'u1',
    labels: base,
    annotations: { [SELECTED_NODE_ANNOTATION]: 'n-a' },
  },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } },
};

test("the helper claim asks the delegate class for the claim's size on the claim's node, named after its uid", () => {
  const helper = helperClaimObject(pvc, claimFacts(pvc), {
    delegateClass: 'gp3',
    provisionerLabel: 'sluice.io_volumes-ci',
    reason: 'no volume has been made yet',
  });
  assert.equal(helper.metadata.name, 'sluice-new-u1');
  assert.equal(helper.metadata.labels?.[DELEGATE_FOR_LABEL], 'u1');
  assert.equal(helper.metadata.annotations?.[SELECTED_NODE_ANNOTATION], 'n-a');
  assert.equal(
    helper.metadata.annotations?.[CACHE_ANNOTATIONS.reason],
    'no volume has been made yet',
  );
  assert.deepEqual(helper['spec'], {
    accessModes: ['ReadWriteOnce'],
    storageClassName: 'gp3',
    resources: { requests: { storage: '20Gi' } },
  });
});

function madeByDriver(affinity?: unknown): KubeResource {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: 'pvc-1234',
      resourceVersion: '42',
      annotations: { 'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com' },
    },
    spec: {
      storageClassName: 'gp3',
      persistentVolumeReclaimPolicy: 'Delete',
      claimRef: { namespace: 'ns', name: 'sluice-new-u1', uid: 'h1' },
      ...(affinity === undefined ? {} : { nodeAffinity: affinity }),
    },
  };
}

test("adopting is one guarded write: Retain, the runtime's class, the claim, its labels; the zone kept or given", () => {
  const o = {
    provisionerLabel: 'sluice.io_volumes-ci',
    provisionerName: 'sluice.io/volumes-ci',
    storageClass: 'sluice-volumes-ci',
    delegateClass: 'gp3',
    zone: 'zone-a',
    now: Date.parse('2026-11-30T12:00:00Z'),
  };
  const patch = adoptPatch(madeByDriver(), pvc, claimFacts(pvc), o) as {
    metadata: {
      resourceVersion: string;
      labels: Record<string, string>;
      annotations: Record<string, string>;
    };
    spec: Record<string, unknown>;
  };
  assert.equal(patch.metadata.resourceVersion, '42', 'refused if the volume changed');
  assert.equal(patch.spec['persistentVolumeReclaimPolicy'], 'Retain');
  assert.equal(patch.spec['storageClassName'], 'sluice-volumes-ci');
  assert.deepEqual(patch.spec['claimRef'], {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    namespace: 'ns',
    name: 'pvc-dind-b1',
    uid: 'u1',
  });
  assert.deepEqual(patch.spec['nodeAffinity'], {
    required: { nodeSelectorTerms: inZone(ZONE_LABEL, 'zone-a') },
  });
  assert.equal(patch.metadata.labels[ZONE_LABEL], 'zone-a');
  assert.equal(patch.metadata.labels[PROVISIONER_LABEL], 'sluice.io_volumes-ci');
  assert.equal(patch.metadata.labels['pipeline'], 'p1');
  assert.equal(patch.metadata.annotations[VOLUME_ANNOTATIONS.delegateClass], 'gp3');
  assert.equal(patch.metadata.annotations[VOLUME_ANNOTATIONS.usedBy], 'u1');
  assert.equal(patch.metadata.annotations[VOLUME_ANNOTATIONS.mountCount], '1');

  // A driver's own topology is never replaced (it is immutable); its zone is the volume's.
  const own = { required: { nodeSelectorTerms: inZone('topology.ebs.csi.aws.com/zone', 'eu-1c') } };
  const kept = adoptPatch(madeByDriver(own), pvc, claimFacts(pvc), o) as typeof patch;
  assert.equal(kept.spec['nodeAffinity'], undefined);
  assert.equal(kept.metadata.labels[ZONE_LABEL], 'eu-1c');
});

test('a retired delegated volume goes back to its class with reclaim policy Delete, guarded', () => {
  const pv = madeByDriver();
  pv.metadata.annotations = { [VOLUME_ANNOTATIONS.delegateClass]: 'gp3' };
  assert.deepEqual(deleteThroughDelegatePatch(pv, 'unused for more than its retention'), {
    metadata: {
      resourceVersion: '42',
      annotations: { [VOLUME_ANNOTATIONS.retiring]: 'unused for more than its retention' },
    },
    spec: { persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'gp3' },
  });
});

test("a volume's facts carry its affinity and zone; a local volume keeps its node", () => {
  const pv = madeByDriver({ required: { nodeSelectorTerms: inZone(ZONE_LABEL, 'zone-a') } });
  const facts = volumeFacts(pv, new Set());
  assert.equal(facts.zone, 'zone-a');
  assert.deepEqual(facts.placement, inZone(ZONE_LABEL, 'zone-a'));
  assert.equal(facts.node, undefined);
});
