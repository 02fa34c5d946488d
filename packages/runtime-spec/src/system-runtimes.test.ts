import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolveRuntimeSpec } from './resolve-runtime-spec.js';
import {
  IMAGE_TAG,
  SYSTEM_RUNTIME_NAMES,
  isSystemRuntimeName,
  systemRuntimeSpec,
  systemRuntimeSpecs,
} from './system-runtimes.js';
import { validateRuntimeSpec } from './validate-runtime-spec.js';
import type { RuntimeSpec } from './schema/runtime-spec-schema.js';

function withChild(child: RuntimeSpec) {
  return (name: string) => (name === child.metadata.name ? child : systemRuntimeSpec(name));
}

test('every built-in spec is valid and named under system/', () => {
  const names = systemRuntimeSpecs().map((spec) => {
    const result = validateRuntimeSpec(spec);
    assert.equal(result.ok, true, result.ok ? '' : result.issues.map((i) => i.message).join());
    assert.ok(isSystemRuntimeName(spec.metadata.name));
    return spec.metadata.name;
  });
  assert.deepEqual(names, Object.values(SYSTEM_RUNTIME_NAMES));
});

test('the default images carry the tag the image script makes and the chart names', () => {
  const root = new URL('../../../', import.meta.url);
  const script = readFileSync(new URL('images/build-cluster-images.sh', root), 'utf8');
  for (const name of ['engine', 'dind'])
    assert.match(script, new RegExp(`local image=sluice/${name}:${IMAGE_TAG} `), name);
  const values = readFileSync(new URL('charts/sluice-runtime/values.yaml', root), 'utf8');
  assert.match(values, new RegExp(`repository: sluice/engine\\n\\s+tag: '${IMAGE_TAG}'`));
  const k8s = systemRuntimeSpec(SYSTEM_RUNTIME_NAMES.k8s);
  assert.equal(k8s?.runtimeScheduler?.image, `sluice/engine:${IMAGE_TAG}`);
  assert.equal(k8s?.dockerDaemonScheduler?.dindImage, `sluice/dind:${IMAGE_TAG}`);
});

test('a Kubernetes runtime needs only a namespace on top of system/default/k8s', () => {
  const child: RuntimeSpec = {
    metadata: { name: 'prod/ci', agent: true },
    extends: [SYSTEM_RUNTIME_NAMES.k8s],
    runtimeScheduler: { cluster: { namespace: 'ci' } },
  };
  const result = resolveRuntimeSpec('prod/ci', withChild(child));
  assert.equal(result.ok, true);
  if (!result.ok) return;
  const dind = result.spec.dockerDaemonScheduler;
  assert.equal(dind?.pvcs?.dind?.volumeSize, '16Gi');
  assert.equal(dind?.pvcs?.dind?.reuseVolumeSelector, 'sluice.io/app,sluice.io/pipeline-id');
  assert.deepEqual(dind?.tolerations, [
    { key: 'sluice.io/dind', operator: 'Exists', effect: 'NoSchedule' },
  ]);
  assert.equal(result.spec.runtimeScheduler?.workflowLimits?.TIME_INACTIVE_UNTIL_TERMINATION, 2700);
});

test('system/default/k8s-guaranteed gives dind requests equal to limits', () => {
  const child: RuntimeSpec = {
    metadata: { name: 'g' },
    extends: [SYSTEM_RUNTIME_NAMES.k8sGuaranteed],
    runtimeScheduler: { cluster: { namespace: 'ci' } },
  };
  const result = resolveRuntimeSpec('g', withChild(child));
  assert.equal(result.ok, true);
  if (!result.ok) return;
  const resources = result.spec.dockerDaemonScheduler?.defaultDindResources;
  assert.deepEqual(resources?.requests, resources?.limits);
  assert.deepEqual(result.chain, [
    SYSTEM_RUNTIME_NAMES.k8s,
    SYSTEM_RUNTIME_NAMES.k8sGuaranteed,
    'g',
  ]);
});

test('system/default/local resolves on its own', () => {
  const result = resolveRuntimeSpec(SYSTEM_RUNTIME_NAMES.local, systemRuntimeSpec);
  assert.equal(result.ok, true);
  if (result.ok) assert.equal(result.spec.dockerDaemonScheduler?.type, 'LocalDocker');
});

test('systemRuntimeSpec hands out copies', () => {
  const copy = systemRuntimeSpec(SYSTEM_RUNTIME_NAMES.k8s);
  copy!.runtimeScheduler!.image = 'changed';
  assert.notEqual(systemRuntimeSpec(SYSTEM_RUNTIME_NAMES.k8s)?.runtimeScheduler?.image, 'changed');
  assert.equal(systemRuntimeSpec('system/default/nope'), undefined);
});
