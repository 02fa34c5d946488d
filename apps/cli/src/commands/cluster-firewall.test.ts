import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterObjects } from './cluster-firewall.js';
import type { FirewallClusterSettings } from './cluster-firewall.js';

const SETTINGS: FirewallClusterSettings = {
  name: 'shop',
  runtime: 'k8s',
  runtimeNamespace: 'builds',
  namespaces: ['apps', 'apps-staging'],
  serviceAccount: 'sluice-cluster-shop',
  role: 'edit',
};
const AGENT = { name: 'sluice-agent', namespace: 'sluice' };

test('a built-in role: the service account, a binding per namespace, and the agent may mint its token only', () => {
  const objects = clusterObjects(SETTINGS, [AGENT]);
  assert.deepEqual(
    objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`),
    [
      'ServiceAccount builds/sluice-cluster-shop',
      'RoleBinding apps/sluice-cluster-shop',
      'RoleBinding apps-staging/sluice-cluster-shop',
      'Role builds/sluice-cluster-shop-token',
      'RoleBinding builds/sluice-cluster-shop-token',
    ],
  );
  for (const object of objects)
    assert.deepEqual(object.metadata.labels, {
      'sluice.io/cluster': 'shop',
      'app.kubernetes.io/managed-by': 'sluice',
    });
  const binding = objects[1] as unknown as { roleRef: unknown; subjects: unknown };
  assert.deepEqual(binding.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: 'edit',
  });
  assert.deepEqual(binding.subjects, [
    { kind: 'ServiceAccount', name: 'sluice-cluster-shop', namespace: 'builds' },
  ]);
  const mint = objects[3] as unknown as { rules: unknown };
  assert.deepEqual(mint.rules, [
    {
      apiGroups: [''],
      resources: ['serviceaccounts/token'],
      verbs: ['create'],
      resourceNames: ['sluice-cluster-shop'],
    },
  ]);
  assert.deepEqual((objects[4] as unknown as { subjects: unknown }).subjects, [
    { kind: 'ServiceAccount', ...AGENT },
  ]);
});

test("a custom role: a Role of the file's rules in each namespace, bound by name", () => {
  const rules = [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'patch'] }];
  const objects = clusterObjects(
    { ...SETTINGS, namespaces: ['apps'], role: { rules, file: 'role.yaml' } },
    [AGENT],
  );
  assert.deepEqual(
    objects
      .slice(1, 3)
      .map((o) => [o.kind, o.metadata.namespace, (o as unknown as { rules?: unknown }).rules]),
    [
      ['Role', 'apps', rules],
      ['RoleBinding', 'apps', undefined],
    ],
  );
  assert.equal(
    (objects[2] as unknown as { roleRef: { kind: string; name: string } }).roleRef.kind,
    'Role',
  );
});
