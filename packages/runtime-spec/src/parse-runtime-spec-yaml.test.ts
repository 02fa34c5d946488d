import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KUBERNETES_SPEC_YAML, LOCAL_SPEC_YAML } from './fixtures.test-support.js';
import { parseRuntimeSpecYaml } from './parse-runtime-spec-yaml.js';
import { formatRuntimeSpecIssue } from './runtime-spec-issue.js';

function problems(text: string): string[] {
  const result = parseRuntimeSpecYaml(text, 're.yaml');
  assert.equal(result.ok, false);
  return result.ok ? [] : result.issues.map(formatRuntimeSpecIssue);
}

test('the fixture files parse', () => {
  for (const text of [KUBERNETES_SPEC_YAML, LOCAL_SPEC_YAML]) {
    const result = parseRuntimeSpecYaml(text, 're.yaml');
    assert.equal(result.ok, true, result.ok ? '' : result.issues.map((i) => i.message).join('\n'));
  }
});

test('issues are placed at line:column, unknown fields at their key, in file order', () => {
  const text = [
    'metadata:',
    '  name: prod/ci',
    'runtimeScheduler:',
    '  cluster:',
    '    nameSpace: ci',
    '  imagePullPolicy: always',
    'dockerDaemonScheduler:',
    '  pvcs:',
    '    dind:',
    '      volumeSize: 16GB',
    '  tolerations:',
    '    - key: sluice.io/dind',
    '      operator: Exist',
    '  terminationGracePeriodSeconds: -30',
  ].join('\n');
  assert.deepEqual(problems(text), [
    're.yaml:5:5: Unknown field "nameSpace" in runtimeScheduler.cluster; did you mean "namespace"? (at runtimeScheduler.cluster.nameSpace)',
    're.yaml:6:20: "imagePullPolicy" must be one of "Always", "IfNotPresent", "Never", got the string "always"; did you mean "Always"? (at runtimeScheduler.imagePullPolicy)',
    're.yaml:10:19: "volumeSize" must be a Kubernetes quantity such as 16Gi, got the string "16GB"; did you mean "16Gi"? (at dockerDaemonScheduler.pvcs.dind.volumeSize)',
    're.yaml:13:17: "operator" must be one of "Exists", "Equal", got the string "Exist"; did you mean "Exists"? (at dockerDaemonScheduler.tolerations[0].operator)',
    're.yaml:14:34: "terminationGracePeriodSeconds" must be at least 0, got the number -30 (at dockerDaemonScheduler.terminationGracePeriodSeconds)',
  ]);
});

test('a missing field is placed at the map that lacks it', () => {
  assert.deepEqual(problems('version: 1\nmetadata:\n  agent: true\n'), [
    're.yaml:3:3: Missing required field "name" in metadata (at metadata.name)',
  ]);
});

test('a field with no value is placed just after its key', () => {
  assert.deepEqual(problems('metadata:\n  name: a\nruntimeScheduler:\n  image:\n'), [
    're.yaml:4:9: "image" must be a string, got nothing (at runtimeScheduler.image)',
  ]);
});

test('fields behind an alias are placed where the alias points', () => {
  const text = [
    'metadata: { name: a }',
    'runtimeScheduler:',
    '  tolerations: &t',
    '    - { key: x, operator: Bad }',
    'dockerDaemonScheduler:',
    '  tolerations: *t',
  ].join('\n');
  assert.deepEqual(problems(text), [
    're.yaml:4:27: "operator" must be one of "Exists", "Equal", got the string "Bad" (at runtimeScheduler.tolerations[0].operator)',
    're.yaml:4:27: "operator" must be one of "Exists", "Equal", got the string "Bad" (at dockerDaemonScheduler.tolerations[0].operator)',
  ]);
});

test('YAML syntax errors come back with their position and no validation', () => {
  assert.deepEqual(problems('metadata:\n  name: a\n  name: b\n'), [
    're.yaml:3:3: Map keys must be unique',
  ]);
  assert.deepEqual(problems('metadata:\n\tname: a\n').length, 1);
});

test('an empty file and a list say what a spec is', () => {
  assert.deepEqual(problems(''), [
    're.yaml:1:1: The runtime environment spec is empty; it needs at least "metadata.name"',
  ]);
  assert.deepEqual(problems('- a\n'), [
    're.yaml:1:1: A runtime environment spec must be a map, got a list',
  ]);
});

test('a byte order mark takes no column', () => {
  assert.deepEqual(problems('\uFEFFmetadata: { name: a }\nversion: 3\n'), [
    're.yaml:2:10: "version" must be 1, got the number 3 (at version)',
  ]);
});
