import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDnsLabel } from '../schema/kube-names.js';
import { buildObjectName } from './build-names.js';
import { renderBuildObjects } from './render-build-objects.js';
import { BUILD, defaultSpec, objectList, validateKube } from './render-fixtures.test-support.js';

const ODD_IDS = [
  '01J9ZK3M8Q4V7XW2B5N6C1D0EF',
  'Build_42/retry.1',
  '-x-',
  '',
  'ä'.repeat(5),
  'a'.repeat(200),
  '9',
];

test('object names are deterministic DNS labels, however odd the build id', () => {
  for (const id of ODD_IDS) {
    for (const prefix of ['dind', 'engine', 'pvc-dind', 'sluice-engine']) {
      const name = buildObjectName(prefix, id);
      assert.ok(isDnsLabel(name), `${JSON.stringify(name)} from ${JSON.stringify(id)}`);
      assert.ok(name.startsWith(`${prefix}-`));
      assert.equal(buildObjectName(prefix, id), name);
    }
  }
  assert.equal(buildObjectName('dind', 'ABC-123'), 'dind-abc-123');
  assert.notEqual(buildObjectName('dind', 'a/b'), buildObjectName('dind', 'a_b'));
  assert.equal(buildObjectName('engine', 'a'.repeat(200)).length, 63);
});

test('odd build ids render objects valid against the Kubernetes schemas', () => {
  for (const buildId of ODD_IDS) {
    const objects = renderBuildObjects(defaultSpec(), { ...BUILD, buildId, branch: '' });
    for (const [, object] of objectList(objects)) validateKube(object);
  }
});
