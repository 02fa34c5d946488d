import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILD_LABELS, labelValue } from '@sluice/runtime-spec';
import { BUILD_LABEL_KEYS, runtimeLabelValue, runtimeSelector } from './kube-labels.js';

// The agent cannot import @sluice/runtime-spec, so it computes the same values itself; this is
// the contract between the two.
const NAMES = [
  'ci',
  'prod-eks/sluice-builds',
  'system/default/k8s',
  'a/b',
  'a_b',
  'my.cluster:builds@eu',
  '---',
  '/leading-slash',
  'trailing/',
  '_under_',
  'Üñí/çødé',
  'x'.repeat(63),
  'x'.repeat(64),
  `${'segment/'.repeat(25)}end`,
  `${'a'.repeat(54)}/////////b`,
];

test('the runtime label value is the one runtime-spec renders, for every kind of name', () => {
  for (const name of NAMES) assert.equal(runtimeLabelValue(name), labelValue(name), name);
});

test('valid names stay as they are; others are cleaned and hashed apart', () => {
  assert.equal(runtimeLabelValue('ci'), 'ci');
  assert.notEqual(runtimeLabelValue('a/b'), runtimeLabelValue('a_b'));
  assert.match(runtimeLabelValue('prod-eks/sluice-builds'), /^prod-eks-sluice-builds-[0-9a-f]{8}$/);
});

test('the label keys are the ones runtime-spec puts on build objects', () => {
  assert.deepEqual(BUILD_LABEL_KEYS, {
    buildId: BUILD_LABELS.buildId,
    runtime: BUILD_LABELS.runtime,
    component: BUILD_LABELS.component,
    managedBy: BUILD_LABELS.managedBy,
  });
  assert.equal(
    runtimeSelector('a/b'),
    `app.kubernetes.io/managed-by=sluice,sluice.io/runtime=${labelValue('a/b')}`,
  );
});
