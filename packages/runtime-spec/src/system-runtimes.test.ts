import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolveRuntimeSpec } from './resolve-runtime-spec.js';
import {
  SLUICE_VERSION,
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

test('SLUICE_VERSION is the package version, and tags the default images', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  assert.equal(SLUICE_VERSION, pkg.version);
  const k8s = systemRuntimeSpec(SYSTEM_RUNTIME_NAMES.k8s);
  assert.equal(k8s?.runtimeScheduler?.image, `sluice/engine:${SLUICE_VERSION}`);
  assert.equal(k8s?.dockerDaemonScheduler?.dindImage, `sluice/dind:${SLUICE_VERSION}`);
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
