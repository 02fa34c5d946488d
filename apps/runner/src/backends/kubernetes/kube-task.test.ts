import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Task } from '@sluice/protocol';
import { TaskFailure } from '../../runtime-backend.js';
import { testTask } from '../../task.test-support.js';
import { kubeTaskAction } from './kube-task.js';

function task(type: Task['type'], spec: Record<string, unknown>): Task {
  return testTask({ id: 't-1', type, buildId: 'b-1', runtime: 'prod/builds', spec });
}

const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'engine-b-1', namespace: 'builds' },
  spec: { containers: [] },
};

function finalFailure(message: string) {
  return (err: unknown) => err instanceof TaskFailure && !err.retriable && err.message === message;
}

test('a create task carries its manifest; a delete task its object', () => {
  assert.deepEqual(kubeTaskAction(task('CreatePod', POD)), { action: 'create', manifest: POD });
  assert.deepEqual(
    kubeTaskAction(task('DeletePvc', { name: 'pvc-dind-b-1', namespace: 'builds' })),
    {
      action: 'delete',
      ref: { kind: 'PersistentVolumeClaim', name: 'pvc-dind-b-1', namespace: 'builds' },
    },
  );
  assert.equal(
    kubeTaskAction(task('DeleteConfigMap', { name: 'c', namespace: 'n' })).action,
    'delete',
  );
});

test('a manifest of another kind than the task type is refused for good', () => {
  assert.throws(
    () => kubeTaskAction(task('CreatePod', { ...POD, kind: 'Secret' })),
    finalFailure('CreatePod task t-1 is malformed: spec.kind is "Secret", expected "Pod"'),
  );
  assert.throws(
    () => kubeTaskAction(task('CreateSecret', {})),
    finalFailure('CreateSecret task t-1 is malformed: spec.kind is missing, expected "Secret"'),
  );
});

test('a manifest without a namespace or of another apiVersion names the field', () => {
  const noNamespace = { ...POD, metadata: { name: 'engine-b-1' } };
  assert.throws(
    () => kubeTaskAction(task('CreatePod', noNamespace)),
    finalFailure(
      'CreatePod task t-1 is malformed: Pod manifest has no metadata.namespace (got undefined)',
    ),
  );
  assert.throws(
    () => kubeTaskAction(task('CreatePod', { ...POD, apiVersion: 'apps/v1' })),
    (err: unknown) =>
      err instanceof TaskFailure && !err.retriable && /apiVersion "apps\/v1"/.test(err.message),
  );
});

test('a delete task without name or namespace is refused for good', () => {
  assert.throws(
    () => kubeTaskAction(task('DeletePod', { namespace: 'builds' })),
    finalFailure('DeletePod task t-1 is malformed: spec.name is missing, expected a name'),
  );
  assert.throws(
    () => kubeTaskAction(task('DeleteSecret', { name: 's', namespace: 7 })),
    finalFailure('DeleteSecret task t-1 is malformed: spec.namespace is 7, expected a name'),
  );
});

test('engine process tasks are not for a Kubernetes runtime', () => {
  for (const type of ['RunEngine', 'StopEngine'] as const) {
    assert.throws(
      () => kubeTaskAction(task(type, { buildId: 'b-1' })),
      finalFailure(
        `${type} task t-1 is for local runtimes; runtime "prod/builds" is a Kubernetes runtime`,
      ),
    );
  }
});

test('a cluster-credentials task carries which tokens to mint, checked field by field', () => {
  const spec = {
    metadata: { name: 'sluice-clusters-b-1', namespace: 'builds', labels: { a: 'b' } },
    boundSecret: 'sluice-engine-b-1',
    key: 'clusters.json',
    expirationSeconds: 86_400,
    clusters: [{ name: 'shop', serviceAccount: 'sluice-cluster-shop', namespace: 'apps' }],
  };
  assert.deepEqual(kubeTaskAction(task('CreateClusterCredentials', spec)), {
    action: 'credentials',
    spec,
  });
  assert.throws(
    () =>
      kubeTaskAction(
        task('CreateClusterCredentials', { ...spec, expirationSeconds: 60, clusters: [] }),
      ),
    (err: unknown) =>
      err instanceof TaskFailure &&
      !err.retriable &&
      /CreateClusterCredentials task t-1 is malformed: spec\.expirationSeconds: .*; spec\.clusters: /.test(
        err.message,
      ),
  );
});
