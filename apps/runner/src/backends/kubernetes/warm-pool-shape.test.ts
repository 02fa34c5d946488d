/**
 * The warm pool's pods, learnt from the objects the control plane renders for a build of the
 * system default runtime: checked against the official Kubernetes schemas, with the daemon on
 * the pod's socket only, the engine waiting on its handover port, and nothing of the build
 * that taught them (its id, its token, its certificates) in them.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Secret } from 'kubernetes-models/v1/Secret';
import { buildInput, renderBuildObjects, runtimeSpec } from './kubernetes-backend.test-support.js';
import {
  handoverEnv,
  learnShape,
  memberClaim,
  memberSecret,
  memberPod,
  POOL_DOCKER_HOST,
  shapeComplete,
  shapeHash,
  WARM_POOL_SHAPE_ANNOTATION,
} from './warm-pool-shape.js';
import type { PoolShape } from './warm-pool-shape.js';

const RUNTIME = 'prod/ci';
const NS = 'builds';

function taught(buildId: string, pipelineId = 'pipe-1'): PoolShape {
  const objects = renderBuildObjects(runtimeSpec(RUNTIME, NS), {
    ...buildInput(buildId, RUNTIME),
    pipelineId,
  });
  let shape: PoolShape = {};
  for (const object of [objects.pvc, objects.configMap, objects.dindPod, objects.enginePod])
    shape = learnShape(shape, object);
  return shape;
}

const member = {
  name: 'warm-pool-abc',
  namespace: NS,
  runtime: RUNTIME,
  key: 'k'.repeat(64),
  tls: { caPem: 'the-pool-ca', certPem: 'the-pool-cert', keyPem: 'the-pool-key' },
  priorityClassName: 'sluice-warm-pool',
  labels: { 'sluice.io/warm-pool': 'waiting' },
};

test("a build's objects teach the pool its pods: valid, the daemon on a shared socket, the engine on its port, nothing of the build", () => {
  const shape = taught('build-1');
  assert.ok(shapeComplete(shape));
  const pod = memberPod(shape, member);
  const claim = memberClaim(shape, member);
  const secret = memberSecret(shape, member, 'claim-uid-1');
  new Pod(pod).validate();
  new PersistentVolumeClaim(claim).validate();
  new Secret(secret).validate();

  const text = JSON.stringify([pod, claim, secret]);
  for (const own of ['build-1', 'engine-token-of-the-test', 'BEGIN CERTIFICATE'])
    assert.ok(!text.includes(own), `nothing of the teaching build: ${own}`);
  const spec = pod['spec'] as {
    priorityClassName: string;
    containers: { name: string; env?: { name: string; value: string }[]; ports?: unknown[] }[];
    volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[];
  };
  assert.equal(spec.priorityClassName, 'sluice-warm-pool');
  assert.deepEqual(
    spec.containers.map((c) => c.name),
    ['dind', 'engine'],
  );
  assert.equal(spec.containers[0]?.ports, undefined, 'no TCP port for the daemon');
  assert.deepEqual(spec.containers[1]?.env, [
    { name: 'SLUICE_ENGINE_POOL_PORT', value: '1301' },
    { name: 'SLUICE_ENGINE_POOL_KEY_FILE', value: '/etc/sluice/warm-pool/handover-key' },
    { name: 'SLUICE_ENGINE_POOL_TLS_CERT_FILE', value: '/etc/sluice/warm-pool/handover.crt' },
    { name: 'SLUICE_ENGINE_POOL_TLS_KEY_FILE', value: '/etc/sluice/warm-pool/handover.key' },
    { name: 'DOCKER_HOST', value: POOL_DOCKER_HOST },
  ]);
  // The handover port's TLS is the pod's own, beside its key.
  const { ['daemon.json']: _daemon, ...own } = secret['stringData'] as Record<string, string>;
  assert.deepEqual(own, {
    'handover-key': member.key,
    'handover.crt': 'the-pool-cert',
    'handover.key': 'the-pool-key',
    'handover-ca.crt': 'the-pool-ca',
  });
  assert.equal(spec.volumes[0]?.persistentVolumeClaim?.claimName, member.name);
  const daemon = JSON.parse(
    (secret['stringData'] as Record<string, string>)['daemon.json'] ?? '{}',
  ) as Record<string, unknown>;
  assert.deepEqual(daemon['hosts'], [POOL_DOCKER_HOST]);
  assert.ok(!Object.keys(daemon).some((key) => key.startsWith('tls')), 'no TLS');
  // The claim is made first, owned by nothing until its pod is made; the Secret goes with it.
  const owners = (o: Record<string, unknown>) =>
    (o['metadata'] as { ownerReferences?: unknown[] }).ownerReferences;
  assert.equal(owners(claim), undefined);
  assert.deepEqual(owners(secret), [
    { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: member.name, uid: 'claim-uid-1' },
  ]);
});

test("builds of one pipeline teach the same shape; another pipeline's (compared by reuseVolumeSelector) another", () => {
  assert.equal(shapeHash(taught('build-1')), shapeHash(taught('build-2')));
  assert.notEqual(shapeHash(taught('build-1')), shapeHash(taught('build-3', 'pipe-2')));
  const claim = memberClaim(taught('build-1'), member);
  const labels = (claim['metadata'] as { labels: Record<string, string> }).labels;
  assert.equal(labels['sluice.io/pipeline-id'], 'pipe-1', 'the compared label stays');
  assert.equal(labels['sluice.io/build-id'], undefined);
});

test('a member made on a released volume names it on its pod and, as the volume it prefers, on its claim; the shape hash stays', () => {
  const shape = taught('build-1');
  const onVolume = {
    ...member,
    annotations: { 'sluice.io/warm-pool-volume': 'sluice-pv-1' },
    claimAnnotations: { 'sluice.io/prefer-volume': 'sluice-pv-1' },
  };
  const pod = memberPod(shape, onVolume);
  const claim = memberClaim(shape, onVolume);
  const annotations = (o: Record<string, unknown>) =>
    (o['metadata'] as { annotations: Record<string, string> }).annotations;
  assert.equal(annotations(pod)['sluice.io/warm-pool-volume'], 'sluice-pv-1');
  assert.equal(annotations(claim)['sluice.io/prefer-volume'], 'sluice-pv-1');
  const plain = memberClaim(shape, member);
  assert.equal(annotations(plain)['sluice.io/prefer-volume'], undefined);
  // The reuse annotations the builds' claims carry are kept beside it.
  assert.equal(
    annotations(claim)['sluice.io/reuse-volume-selector'],
    annotations(plain)['sluice.io/reuse-volume-selector'],
  );
  assert.equal(annotations(pod)[WARM_POOL_SHAPE_ANNOTATION], shapeHash(shape));
});

test("the engine's variables are handed over resolved, with the daemon on the pod's socket", () => {
  const objects = renderBuildObjects(runtimeSpec(RUNTIME, NS), buildInput('build-9', RUNTIME));
  const secrets: Record<string, string> = { 'engine-token': 'the-token' };
  const { env, unresolved } = handoverEnv(objects.enginePod, member.name, (name, key) =>
    name === objects.secret.metadata.name ? secrets[key] : undefined,
  );
  assert.deepEqual(unresolved, []);
  assert.equal(env['SLUICE_BUILD_ID'], 'build-9');
  assert.equal(env['SLUICE_ENGINE_TOKEN'], 'the-token');
  assert.equal(env['DOCKER_HOST'], POOL_DOCKER_HOST);
  assert.equal(env['SLUICE_DIND_POD'], member.name);
  assert.equal(env['DOCKER_TLS_VERIFY'], undefined);
  assert.equal(env['DOCKER_CERT_PATH'], undefined);
  const missing = handoverEnv(objects.enginePod, member.name, () => undefined);
  assert.deepEqual(missing.unresolved, ['SLUICE_ENGINE_TOKEN']);
});
