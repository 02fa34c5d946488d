import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException,
  AuthorizationV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
  StorageV1Api,
  Watch,
} from '@kubernetes/client-node';
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { eventually } from '../wait-for.js';
import { useKubernetes } from './use-kubernetes.js';

// One API-only cluster for the file: etcd, apiserver, controller-manager, scheduler; no node.
// Its own, not the test run's shared one: the last test stops it and checks nothing is left.
const cluster = useKubernetes({ nodes: false, ownCluster: true });
const NS = 'smoke';

function core(): CoreV1Api {
  return cluster().kubeConfig.makeApiClient(CoreV1Api);
}

test('the API server answers with its version, and a namespace can be created and read', async () => {
  assert.equal(cluster().mode, 'api-only');
  assert.match(cluster().server, /^https:\/\/127\.0\.0\.1:\d+$/);
  const created = await core().createNamespace({ body: { metadata: { name: NS } } });
  assert.equal(created.metadata?.name, NS);
  const read = await core().readNamespace({ name: NS });
  assert.equal(read.status?.phase, 'Active');
  // The controller-manager gives every namespace its default ServiceAccount.
  const sa = await eventually(
    () => core().listNamespacedServiceAccount({ namespace: NS }),
    (list) => list.items.some((item) => item.metadata?.name === 'default'),
  );
  assert.ok(sa.items.some((item) => item.metadata?.name === 'default'));
});

test('the controller-manager binds a PVC to a matching PV of a StorageClass', async () => {
  const storage = cluster().kubeConfig.makeApiClient(StorageV1Api);
  await storage.createStorageClass({
    body: {
      metadata: { name: 'smoke-local' },
      provisioner: 'kubernetes.io/no-provisioner',
      volumeBindingMode: 'Immediate',
      reclaimPolicy: 'Retain',
    },
  });
  await core().createPersistentVolume({
    body: {
      metadata: { name: 'smoke-pv', labels: { 'sluice.io/cache': 'warm' } },
      spec: {
        storageClassName: 'smoke-local',
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/tmp/sluice-smoke-pv' },
      },
    },
  });
  await core().createNamespacedPersistentVolumeClaim({
    namespace: NS,
    body: {
      metadata: { name: 'smoke-pvc' },
      spec: {
        storageClassName: 'smoke-local',
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
        selector: { matchLabels: { 'sluice.io/cache': 'warm' } },
      },
    },
  });
  const pvc = await eventually<V1PersistentVolumeClaim>(
    () => core().readNamespacedPersistentVolumeClaim({ name: 'smoke-pvc', namespace: NS }),
    (claim) => claim.status?.phase === 'Bound',
  );
  assert.equal(pvc.status?.phase, 'Bound');
  assert.equal(pvc.spec?.volumeName, 'smoke-pv');
  const pv = await core().readPersistentVolume({ name: 'smoke-pv' });
  assert.equal(pv.spec?.claimRef?.name, 'smoke-pvc');
  assert.equal(pv.status?.phase, 'Bound');
});

test('a watch sees a ConfigMap added, modified and deleted', async () => {
  const seen: string[] = [];
  let closed: unknown;
  const watch = new Watch(cluster().kubeConfig);
  const controller = await watch.watch(
    `/api/v1/namespaces/${NS}/configmaps`,
    {},
    (phase, obj: { metadata?: { name?: string } }) => {
      if (obj.metadata?.name === 'watched') seen.push(phase);
    },
    (err: unknown) => {
      closed = err;
    },
  );
  try {
    await core().createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: 'watched' }, data: { a: '1' } },
    });
    const current = await core().readNamespacedConfigMap({ name: 'watched', namespace: NS });
    await core().replaceNamespacedConfigMap({
      name: 'watched',
      namespace: NS,
      body: { ...current, data: { a: '2' } },
    });
    await core().deleteNamespacedConfigMap({ name: 'watched', namespace: NS });
    await eventually(
      () => Promise.resolve(seen.length),
      (n) => n >= 3,
      { timeoutMs: 10_000 },
    );
    assert.deepEqual(seen, ['ADDED', 'MODIFIED', 'DELETED']);
    assert.equal(closed, undefined);
  } finally {
    controller.abort();
  }
});

test('RBAC refuses a service account without rights, and allows it once a Role is bound', async () => {
  await core().createNamespacedServiceAccount({
    namespace: NS,
    body: { metadata: { name: 'nobody' } },
  });
  // 1.20's token controller writes the account's token into a Secret.
  const secrets = await eventually(
    () => core().listNamespacedSecret({ namespace: NS }),
    (list) =>
      list.items.some(
        (s) => s.metadata?.annotations?.['kubernetes.io/service-account.name'] === 'nobody',
      ),
  );
  const secret = secrets.items.find(
    (s) => s.metadata?.annotations?.['kubernetes.io/service-account.name'] === 'nobody',
  );
  const token = Buffer.from(secret?.data?.['token'] ?? '', 'base64').toString('utf8');
  assert.notEqual(token, '');
  const asNobody = new KubeConfig();
  asNobody.loadFromOptions({
    clusters: [{ name: 'c', server: cluster().server, caFile: cluster().caFile }],
    users: [{ name: 'nobody', token }],
    contexts: [{ name: 'nobody', cluster: 'c', user: 'nobody' }],
    currentContext: 'nobody',
  });
  const nobodyCore = asNobody.makeApiClient(CoreV1Api);
  const refused = await nobodyCore.listNamespacedPod({ namespace: NS }).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(refused instanceof ApiException, `expected an ApiException, got ${String(refused)}`);
  assert.equal(refused.code, 403);
  const review = await asNobody.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
    body: { spec: { resourceAttributes: { namespace: NS, verb: 'list', resource: 'pods' } } },
  });
  assert.equal(review.status?.allowed, false);

  const rbac = cluster().kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: NS,
    body: {
      metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: NS,
    body: {
      metadata: { name: 'nobody-reads-pods' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'nobody', namespace: NS }],
    },
  });
  const pods = await nobodyCore.listNamespacedPod({ namespace: NS });
  assert.deepEqual(pods.items, []);
});

test('the scheduler reports a pod unschedulable when there is no node', async () => {
  await core().createNamespacedPod({
    namespace: NS,
    body: {
      metadata: { name: 'pending' },
      spec: { containers: [{ name: 'c', image: 'sluice/busybox:1' }] },
    },
  });
  const pod = await eventually(
    () => core().readNamespacedPod({ name: 'pending', namespace: NS }),
    (p) =>
      p.status?.conditions?.some(
        (c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable',
      ) ?? false,
  );
  assert.equal(pod.status?.phase, 'Pending');
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  assert.equal(scheduled?.status, 'False');
  assert.equal(scheduled?.reason, 'Unschedulable');
});

test('stopping the API-only cluster leaves no process or directory behind', async () => {
  await cluster().stop();
  assert.deepEqual(await cluster().leftovers(), []);
});
