import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { KUBERNETES_SPEC_YAML, LOCAL_SPEC_YAML } from './fixtures.test-support.js';
import { validateRuntimeSpec } from './validate-runtime-spec.js';
import type { RuntimeSpec } from './schema/runtime-spec-schema.js';

function valid(input: unknown): RuntimeSpec {
  const result = validateRuntimeSpec(input);
  if (!result.ok) assert.fail(result.issues.map((i) => i.message).join('\n'));
  return result.spec;
}

test('a Kubernetes runtime using every section is valid', () => {
  const spec = valid(parse(KUBERNETES_SPEC_YAML));
  assert.equal(spec.metadata.name, 'prod-eks/sluice-builds');
  assert.deepEqual(spec.extends, ['system/default/k8s']);
  assert.equal(spec.runtimeScheduler?.userEnvVars?.length, 4);
  assert.equal(spec.dockerDaemonScheduler?.pvcs?.dind?.volumeSize, '30Gi');
  assert.equal(spec.dockerDaemonScheduler?.daemonConfig?.mtu, 1440);
  assert.deepEqual(spec.dockerDaemonScheduler?.initContainers?.[0]?.command, [
    'sh',
    '-c',
    'chown -R 1000:1000 /var/lib/docker',
  ]);
});

test('the local runtime is valid', () => {
  const spec = valid(parse(LOCAL_SPEC_YAML));
  assert.equal(spec.runtimeScheduler?.type, 'LocalDocker');
  assert.equal(spec.runtimeScheduler?.dockerHost, 'unix:///var/run/docker.sock');
  assert.equal(spec.controlPlaneUrl, 'http://127.0.0.1:8080');
});

test('scalars are normalised to the text Kubernetes takes', () => {
  const spec = valid(parse(KUBERNETES_SPEC_YAML));
  assert.deepEqual(spec.runtimeScheduler?.envVars, {
    LOG_LEVEL: 'debug',
    DOCKER_REQUEST_TIMEOUT_MS: '30000',
    FORCE_COMPOSE_SERIAL_PULL: 'false',
  });
  assert.deepEqual(spec.runtimeScheduler?.resources?.limits, { cpu: '1', memory: '2Gi' });
  assert.deepEqual(spec.proxy?.noProxy, ['localhost', '127.0.0.1', '.svc', '.cluster.local']);
});

test('a validated spec validates again unchanged', () => {
  const spec = valid(parse(KUBERNETES_SPEC_YAML));
  assert.deepEqual(valid(JSON.parse(JSON.stringify(spec))), spec);
});

test('a spec may be as small as a name and a parent', () => {
  const spec = valid({ metadata: { name: 'ci' }, extends: ['system/default/k8s'] });
  assert.deepEqual(spec, { metadata: { name: 'ci' }, extends: ['system/default/k8s'] });
});

test('noProxy accepts a list, and drops empty entries of a comma list', () => {
  const list = valid({ metadata: { name: 'a' }, proxy: { noProxy: ['a', 'b'] } });
  assert.deepEqual(list.proxy?.noProxy, ['a', 'b']);
  const text = valid({ metadata: { name: 'a' }, proxy: { noProxy: 'a, ,b,' } });
  assert.deepEqual(text.proxy?.noProxy, ['a', 'b']);
});

test('a value that is not a map is one issue at the root', () => {
  for (const [input, message] of [
    [null, 'The runtime environment spec is empty; it needs at least "metadata.name"'],
    [[1], 'A runtime environment spec must be a map, got a list'],
    ['x', 'A runtime environment spec must be a map, got the string "x"'],
  ] as const) {
    const result = validateRuntimeSpec(input);
    assert.equal(result.ok, false);
    if (!result.ok)
      assert.deepEqual(
        result.issues.map((i) => [i.path, i.message]),
        [[[], message]],
      );
  }
});
