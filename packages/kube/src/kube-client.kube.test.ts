import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, useKubernetes } from '@sluice/testkit';
import { classifyKubeError } from './kube-errors.js';
import { KubeClient } from './kube-client.js';
import { AGENT_PERMISSIONS } from './kube-permissions.js';
import {
  adminSource,
  createNamespace,
  createServiceAccount,
  tokenSource,
} from './testing/index.js';

// One API-only cluster for the file: no node, so every pod stays Pending.
const cluster = useKubernetes({ nodes: false });
const NS = 'kube-client';
let namespaceMade = false;

async function adminClient(options: { qps?: number; burst?: number } = {}): Promise<KubeClient> {
  if (!namespaceMade) {
    await createNamespace(cluster(), NS);
    namespaceMade = true;
  }
  return KubeClient.create({ source: adminSource(cluster()), env: {}, ...options });
}

function configMap(name: string, labels: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS, labels },
    data: { a: '1' },
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected the request to fail'),
    (err: unknown) => err,
  );
}

test('the server version answers through the admin kubeconfig', async () => {
  const kube = await adminClient();
  const version = await kube.serverVersion();
  assert.equal(version.gitVersion, 'v1.20.2');
  assert.equal(kube.server, cluster().server);
});

test('create twice gives created then exists; delete twice gives deleted then absent', async () => {
  const kube = await adminClient();
  assert.equal(await kube.create(configMap('twice')), 'created');
  assert.equal(await kube.create(configMap('twice')), 'exists');
  const ref = { kind: 'ConfigMap', namespace: NS, name: 'twice' };
  assert.equal(await kube.delete(ref), 'deleted');
  assert.equal(await kube.delete(ref), 'absent');
  assert.deepEqual(
    await kube.list({ kind: 'ConfigMap', namespace: NS, labelSelector: 'x=never' }),
    [],
  );
});

test('list finds the objects of one label selector, with their labels', async () => {
  const kube = await adminClient();
  for (const [name, build] of [
    ['s-1', 'b1'],
    ['s-2', 'b1'],
    ['s-3', 'b2'],
  ] as const) {
    const labels = { 'sluice.io/build-id': build, 'app.kubernetes.io/managed-by': 'sluice' };
    await kube.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: NS, labels },
      stringData: { k: 'v' },
    });
  }
  const found = await kube.list({
    kind: 'Secret',
    namespace: NS,
    labelSelector: 'sluice.io/build-id=b1',
  });
  assert.deepEqual(found.map((o) => o.name).sort(), ['s-1', 's-2']);
  assert.deepEqual(found[0]?.labels, {
    'sluice.io/build-id': 'b1',
    'app.kubernetes.io/managed-by': 'sluice',
  });
  assert.equal(found[0]?.kind, 'Secret');
  assert.equal(found[0]?.namespace, NS);
});

test('a pod that can never be scheduled is Pending and can be deleted', async () => {
  const kube = await adminClient();
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'never-scheduled', namespace: NS, labels: { t: 'pending' } },
    spec: {
      terminationGracePeriodSeconds: 300,
      containers: [{ name: 'c', image: 'sluice/busybox:1' }],
    },
  };
  assert.equal(await kube.create(pod), 'created');
  const [listed] = await kube.list({ kind: 'Pod', namespace: NS, labelSelector: 't=pending' });
  assert.equal(listed?.phase, 'Pending');
  assert.equal(
    await kube.delete({ kind: 'Pod', namespace: NS, name: 'never-scheduled' }),
    'deleted',
  );
  const left = await eventually(
    () => kube.list({ kind: 'Pod', namespace: NS, labelSelector: 't=pending' }),
    (pods) => pods.length === 0,
  );
  assert.deepEqual(left, []);
  assert.equal(
    await kube.delete({ kind: 'Pod', namespace: NS, name: 'never-scheduled' }),
    'absent',
  );
});

test('a manifest the API server refuses fails for good, with the status and the name', async () => {
  const kube = await adminClient();
  const err = await rejection(kube.create(configMap('Bad_Name')));
  const { outcome, reason } = classifyKubeError(err, 'create');
  assert.equal(outcome, 'fail');
  assert.match(
    reason,
    /^Could not create ConfigMap kube-client\/Bad_Name: the API server answered HTTP 422 Invalid: ConfigMap "Bad_Name" is invalid/,
  );
  const before = kube.requestStats().requests;
  const other = await rejection(
    kube.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: NS },
    }),
  );
  assert.equal((other as { code?: unknown }).code, 'SLUICE_KUBE_UNSUPPORTED_KIND');
  assert.equal(classifyKubeError(other, 'create').outcome, 'fail');
  assert.equal(kube.requestStats().requests, before, 'no request is sent for an unsupported kind');
});

test('a service account token without delete pods: exactly that is missing, and refused', async () => {
  await adminClient();
  const granted = AGENT_PERMISSIONS.filter((p) => !(p.verb === 'delete' && p.resource === 'pods'));
  const token = await createServiceAccount(cluster(), {
    namespace: NS,
    name: 'no-pod-delete',
    permissions: granted,
  });
  const kube = KubeClient.create({ source: tokenSource(cluster(), token), env: {} });
  assert.deepEqual(await kube.missingPermissions(NS, AGENT_PERMISSIONS), [
    { verb: 'delete', resource: 'pods' },
  ]);
  // One rules review, then an access review for the one permission its rules do not grant.
  assert.equal(kube.requestStats().requests, 2);
  assert.equal(await kube.create(configMap('by-token')), 'created');
  const err = await rejection(kube.delete({ kind: 'Pod', namespace: NS, name: 'any' }));
  const { outcome, reason } = classifyKubeError(err, 'delete');
  assert.equal(outcome, 'fail');
  assert.match(
    reason,
    /^Could not delete Pod kube-client\/any: the API server answered HTTP 403 Forbidden: .*no-pod-delete/,
  );
  assert.doesNotMatch(reason, new RegExp(token.slice(0, 20)));
});

test('the QPS limit holds requests back: counted, not timed', async () => {
  const open = await adminClient();
  await Promise.all([1, 2, 3].map(() => open.list({ kind: 'ConfigMap', namespace: NS })));
  assert.deepEqual(open.requestStats(), { requests: 3, throttled: 0 });
  const limited = await adminClient({ qps: 2, burst: 1 });
  await Promise.all([1, 2, 3].map(() => limited.list({ kind: 'ConfigMap', namespace: NS })));
  assert.deepEqual(limited.requestStats(), { requests: 3, throttled: 2 });
});

test('a PVC held by a finalizer stays Terminating unless forceDeletePvc patches it away', async () => {
  const kube = await adminClient();
  const pvc = (name: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS, labels: { t: 'pvc' }, finalizers: ['sluice.io/test-hold'] },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  await kube.create(pvc('held'));
  await kube.create(pvc('forced'));
  assert.equal(
    await kube.delete({ kind: 'PersistentVolumeClaim', namespace: NS, name: 'held' }),
    'deleted',
  );
  const force = KubeClient.create({
    source: adminSource(cluster()),
    env: {},
    forceDeletePvc: true,
  });
  assert.equal(
    await force.delete({ kind: 'PersistentVolumeClaim', namespace: NS, name: 'forced' }),
    'deleted',
  );
  const left = await kube.list({
    kind: 'PersistentVolumeClaim',
    namespace: NS,
    labelSelector: 't=pvc',
  });
  assert.deepEqual(
    left.map((o) => [o.name, o.deleting]),
    [['held', true]],
  );
  assert.equal(
    await force.delete({ kind: 'PersistentVolumeClaim', namespace: NS, name: 'held' }),
    'deleted',
  );
  assert.deepEqual(
    await kube.list({ kind: 'PersistentVolumeClaim', namespace: NS, labelSelector: 't=pvc' }),
    [],
  );
});

test('in-cluster: the mounted service account token, CA and namespace', async () => {
  await adminClient();
  const token = await createServiceAccount(cluster(), { namespace: NS, name: 'in-pod' });
  const dir = mkdtempSync(join(tmpdir(), 'sluice-sa-'));
  try {
    writeFileSync(join(dir, 'token'), token);
    writeFileSync(join(dir, 'namespace'), NS);
    copyFileSync(cluster().caFile, join(dir, 'ca.crt'));
    const { hostname, port } = new URL(cluster().server);
    const env = { KUBERNETES_SERVICE_HOST: hostname, KUBERNETES_SERVICE_PORT: port };
    const kube = KubeClient.create({ source: { type: 'in-cluster' }, env, serviceAccountDir: dir });
    assert.equal(kube.defaultNamespace, NS);
    assert.equal((await kube.serverVersion()).gitVersion, 'v1.20.2');
    assert.deepEqual(await kube.missingPermissions(NS, [{ verb: 'get', resource: 'pods' }]), [
      { verb: 'get', resource: 'pods' },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an API server that does not answer is retriable, and a cancelled request too', async () => {
  const down = KubeClient.create({
    source: { type: 'token', host: 'https://127.0.0.1:1', token: 't' },
    env: {},
  });
  const err = await rejection(down.serverVersion());
  const { outcome, reason } = classifyKubeError(err, 'read');
  assert.equal(outcome, 'retry');
  assert.match(
    reason,
    /^Could not read the server version of https:\/\/127\.0\.0\.1:1: no answer from the Kubernetes API server \(ECONNREFUSED/,
  );
  const kube = await adminClient();
  const cancelled = await rejection(
    kube.list({ kind: 'Pod', namespace: NS }, { signal: AbortSignal.abort() }),
  );
  assert.equal(classifyKubeError(cancelled, 'list').outcome, 'retry');
});
