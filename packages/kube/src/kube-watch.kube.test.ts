import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useKubernetes } from '@sluice/testkit';
import { KubeClient } from './kube-client.js';
import { KubeResources } from './kube-resources.js';
import { adminSource, createNamespace } from './testing/index.js';

// One API-only cluster for the file: watches need no node.
const cluster = useKubernetes({ nodes: false });
const NS = 'kube-watch';
let made: KubeResources | undefined;

async function resources(): Promise<KubeResources> {
  if (made !== undefined) return made;
  await createNamespace(cluster(), NS);
  made = new KubeResources(KubeClient.create({ source: adminSource(cluster()), env: {} }));
  return made;
}

function configMap(name: string, labels: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS, labels },
    data: { a: '1' },
  };
}

test('a watch from now sends what exists as ADDED, then the changes, and ends at its timeout with the version to resume from', async () => {
  const r = await resources();
  await r.create(configMap('before', { watched: 'yes' }));
  const events: string[] = [];
  const ended = r.watch(
    { kind: 'ConfigMap', namespace: NS, labelSelector: 'watched=yes', timeoutSeconds: 2 },
    (e) => events.push(`${e.type} ${e.object.metadata.name}`),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  await r.create(configMap('during', { watched: 'yes' }));
  await r.create(configMap('unwatched', { watched: 'no' }));
  await r.delete({ kind: 'ConfigMap', namespace: NS, name: 'during' });
  const end = await ended;
  assert.equal(end.kind, 'ended');
  assert.deepEqual(
    events.filter((e) => !e.startsWith('BOOKMARK')),
    ['ADDED before', 'ADDED during', 'DELETED during'],
    'the label selector holds',
  );
  // Resuming from that version misses nothing and repeats nothing.
  const resumed: string[] = [];
  const again = r.watch(
    {
      kind: 'ConfigMap',
      namespace: NS,
      labelSelector: 'watched=yes',
      timeoutSeconds: 1,
      ...(end.kind === 'ended' && end.resourceVersion !== undefined
        ? { resourceVersion: end.resourceVersion }
        : {}),
    },
    (e) => resumed.push(`${e.type} ${e.object.metadata.name}`),
  );
  await r.create(configMap('after', { watched: 'yes' }));
  await again;
  assert.deepEqual(
    resumed.filter((e) => !e.startsWith('BOOKMARK')),
    ['ADDED after'],
  );
});
