import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveRuntimeSpec } from './resolve-runtime-spec.js';
import { formatRuntimeSpecPath } from './runtime-spec-issue.js';
import { systemRuntimeSpec } from './system-runtimes.js';
import type { RuntimeSpecLookup } from './resolve-runtime-spec.js';
import type { RuntimeSpec } from './schema/runtime-spec-schema.js';

/** A complete local runtime, so that only what a test changes matters. */
const base: RuntimeSpec = {
  metadata: { name: 'base' },
  description: 'the base',
  runtimeScheduler: { type: 'LocalDocker', envVars: { A: '1', B: '2' } },
  dockerDaemonScheduler: { type: 'LocalDocker' },
};

function store(...specs: RuntimeSpec[]): RuntimeSpecLookup {
  const byName = new Map(specs.map((s) => [s.metadata.name, s]));
  return (name) => byName.get(name) ?? systemRuntimeSpec(name);
}

function spec(name: string, fields: Omit<RuntimeSpec, 'metadata'> = {}): RuntimeSpec {
  return { metadata: { name }, ...fields };
}

function resolved(name: string, lookup: RuntimeSpecLookup) {
  const result = resolveRuntimeSpec(name, lookup);
  if (!result.ok) assert.fail(result.issues.map((i) => i.message).join('\n'));
  return result;
}

function failures(name: string, lookup: RuntimeSpecLookup): string[][] {
  const result = resolveRuntimeSpec(name, lookup);
  assert.equal(result.ok, false);
  return result.ok
    ? []
    : result.issues.map((i) => [formatRuntimeSpecPath(i.path), i.code, i.message]);
}

test('two levels merge parents first, maps deeply', () => {
  const mid = spec('mid', {
    extends: ['base'],
    runtimeScheduler: {
      envVars: { B: 'mid', C: '3' },
      workflowLimits: { TIME_INACTIVE_UNTIL_TERMINATION: 60 },
    },
  });
  const leafSpec = spec('leaf', { extends: ['mid'], runtimeScheduler: { envVars: { C: 'leaf' } } });
  const { spec: result, chain } = resolved('leaf', store(base, mid, leafSpec));
  assert.deepEqual(chain, ['base', 'mid', 'leaf']);
  assert.deepEqual(result.runtimeScheduler?.envVars, { A: '1', B: 'mid', C: 'leaf' });
  assert.deepEqual(result.runtimeScheduler?.workflowLimits, {
    TIME_INACTIVE_UNTIL_TERMINATION: 60,
  });
  assert.equal(result.runtimeScheduler?.type, 'LocalDocker');
});

test('metadata and description are not inherited, and extends is gone', () => {
  const { spec: result } = resolved('child', store(base, spec('child', { extends: ['base'] })));
  assert.deepEqual(result.metadata, { name: 'child' });
  assert.equal(result.description, undefined);
  assert.equal('extends' in result, false);
});

test('a child list replaces the parent list', () => {
  const parent = spec('parent', {
    extends: ['system/default/k8s'],
    runtimeScheduler: { cluster: { namespace: 'ci' } },
  });
  const child = spec('child', {
    extends: ['parent'],
    dockerDaemonScheduler: { tolerations: [{ key: 'pool', operator: 'Equal', value: 'ci' }] },
  });
  const { spec: result } = resolved('child', store(parent, child));
  assert.deepEqual(result.dockerDaemonScheduler?.tolerations, [
    { key: 'pool', operator: 'Equal', value: 'ci' },
  ]);
  assert.deepEqual(resolved('parent', store(parent)).spec.dockerDaemonScheduler?.tolerations, [
    { key: 'sluice.io/dind', operator: 'Exists', effect: 'NoSchedule' },
  ]);
});

test('later parents win over earlier ones; a shared grandparent is merged once', () => {
  const left = spec('left', { extends: ['base'], runtimeScheduler: { envVars: { B: 'left' } } });
  const right = spec('right', { extends: ['base'], runtimeScheduler: { envVars: { B: 'right' } } });
  const child = spec('child', { extends: ['left', 'right'] });
  const { spec: result, chain } = resolved('child', store(base, left, right, child));
  assert.deepEqual(result.runtimeScheduler?.envVars, { A: '1', B: 'right' });
  assert.deepEqual(chain, ['base', 'left', 'right', 'child']);
});

test('a cycle is reported naming the chain', () => {
  const a = spec('a', { extends: ['b'] });
  const b = spec('b', { extends: ['base', 'a'] });
  assert.deepEqual(failures('a', store(base, a, b)), [
    [
      'extends[1]',
      'SLUICE_RUNTIME_SPEC_EXTENDS_CYCLE',
      'Runtime environment "b" extends "a", which extends it back: a -> b -> a',
    ],
  ]);
});

test('a spec that extends itself is a cycle', () => {
  assert.deepEqual(failures('a', store(spec('a', { extends: ['a'] }))), [
    [
      'extends[0]',
      'SLUICE_RUNTIME_SPEC_EXTENDS_CYCLE',
      'Runtime environment "a" extends itself: a -> a',
    ],
  ]);
});

test('missing parents are all reported, naming the chain', () => {
  const a = spec('a', { extends: ['b', 'gone'] });
  const b = spec('b', { extends: ['system/default/k9s'] });
  assert.deepEqual(failures('a', store(a, b)), [
    [
      'extends[0]',
      'SLUICE_RUNTIME_SPEC_PARENT_NOT_FOUND',
      'Parent runtime environment "system/default/k9s" of "b" does not exist: a -> b -> system/default/k9s',
    ],
    [
      'extends[1]',
      'SLUICE_RUNTIME_SPEC_PARENT_NOT_FOUND',
      'Parent runtime environment "gone" of "a" does not exist: a -> gone',
    ],
  ]);
});

test('an unknown runtime is not found', () => {
  assert.deepEqual(failures('nope', store()), [
    ['', 'SLUICE_RUNTIME_SPEC_NOT_FOUND', 'Runtime environment "nope" does not exist'],
  ]);
});

test('a merged spec missing what a build needs is incomplete', () => {
  const lonely = spec('lonely', { runtimeScheduler: { type: 'KubernetesPod' } });
  assert.deepEqual(failures('lonely', store(lonely)), [
    [
      'dockerDaemonScheduler.type',
      'SLUICE_RUNTIME_SPEC_INCOMPLETE',
      'Runtime environment "lonely" has no Docker daemon type; set "dockerDaemonScheduler.type" or extend "system/default/k8s" or "system/default/local"',
    ],
    [
      'runtimeScheduler.image',
      'SLUICE_RUNTIME_SPEC_INCOMPLETE',
      'Runtime environment "lonely" has no engine image; set "runtimeScheduler.image" or extend "system/default/k8s" or "system/default/local"',
    ],
    [
      'runtimeScheduler.cluster.namespace',
      'SLUICE_RUNTIME_SPEC_INCOMPLETE',
      'Runtime environment "lonely" has no namespace; set "runtimeScheduler.cluster.namespace" or extend "system/default/k8s" or "system/default/local"',
    ],
  ]);
});

test('a user volume mount needs a user volume', () => {
  const child = spec('child', {
    extends: ['base'],
    dockerDaemonScheduler: { userVolumeMounts: { certs: { mountPath: '/certs' } } },
  });
  assert.deepEqual(failures('child', store(base, child)), [
    [
      'dockerDaemonScheduler.userVolumeMounts.certs',
      'SLUICE_RUNTIME_SPEC_INCOMPLETE',
      'User volume mount "certs" names volume "certs", which "userVolumes" does not have',
    ],
  ]);
});

test('fields that conflict only once merged are reported', () => {
  const child = spec('child', {
    extends: ['system/default/local'],
    runtimeScheduler: { type: 'KubernetesPod', image: 'engine', cluster: { namespace: 'ci' } },
  });
  assert.deepEqual(failures('child', store(child)), [
    [
      'dockerDaemonScheduler.type',
      'SLUICE_RUNTIME_SPEC_INVALID_VALUE',
      'Docker daemon type "LocalDocker" cannot serve engine type "KubernetesPod"; LocalDocker goes with LocalDocker',
    ],
  ]);
});
