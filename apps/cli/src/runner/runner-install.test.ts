import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INSTALL_NAMESPACE_LABEL, installSelector } from '@sluice/runtime-spec';
import { installObjects } from './runner-install.js';
import { resolveRunnerSettings } from './runner-settings.js';

const DEFAULTS = { contextName: 'prod', env: {}, controlPlaneUrl: 'http://ci:8080' };

/** Does `labels` match a selector of `key=value` terms joined by commas? */
function matches(selector: string, labels: Record<string, string> | undefined): boolean {
  return selector.split(',').every((term) => {
    const [key = '', value] = term.split('=');
    return labels?.[key] === value;
  });
}

test('with warm volumes and a new build namespace, namespaces come before anything in them', () => {
  const settings = resolveRunnerSettings(
    { namespace: 'ci', buildNamespace: 'ci-builds', warmVolumes: true },
    {},
    DEFAULTS,
  );
  const objects = installObjects(settings, 'token');
  const kinds = objects.map((o) => o.kind);
  assert.ok(kinds.includes('DaemonSet') && kinds.includes('StorageClass'), kinds.join(', '));
  const lastNamespace = kinds.lastIndexOf('Namespace');
  const firstInside = objects.findIndex((o) => o.metadata.namespace !== undefined);
  assert.ok(lastNamespace < firstInside, `namespaces first: ${kinds.join(', ')}`);
  // What a workload refers to exists before it.
  for (const before of ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRoleBinding'])
    assert.ok(kinds.lastIndexOf(before) < kinds.indexOf('DaemonSet'), `${before} before workloads`);
  assert.equal(kinds.at(-1), 'Deployment');
});

test("an install's selector takes every object of it and none of an install elsewhere", () => {
  const install = (namespace: string) =>
    installObjects(resolveRunnerSettings({ namespace, warmVolumes: true }, {}, DEFAULTS), 'token');
  const walkB = install('walk-b');
  const walkC = install('walk-c');
  // Both keep the default release name: the instance label alone would take both.
  assert.ok(walkB.every((o) => o.metadata.labels?.['app.kubernetes.io/instance'] === 'sluice'));
  const selector = installSelector('sluice', 'walk-b');
  for (const object of walkB) {
    assert.equal(object.metadata.labels?.[INSTALL_NAMESPACE_LABEL], 'walk-b');
    assert.ok(matches(selector, object.metadata.labels), `${object.kind} ${object.metadata.name}`);
  }
  for (const object of walkC)
    assert.ok(!matches(selector, object.metadata.labels), `${object.kind} ${object.metadata.name}`);
});
