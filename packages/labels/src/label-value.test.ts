import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLabelValue, labelValue } from './label-value.js';
import { runtimeSelector } from './build-labels.js';

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

test('label values are kept when valid, otherwise cleaned and told apart by a hash', () => {
  assert.equal(labelValue('main'), 'main');
  assert.equal(labelValue(''), '');
  assert.equal(labelValue('x'.repeat(63)), 'x'.repeat(63));
  for (const text of NAMES) {
    const value = labelValue(text);
    assert.ok(isLabelValue(value), `${JSON.stringify(value)} from ${text}`);
    assert.equal(labelValue(text), value, 'the same text gives the same value');
  }
  assert.notEqual(labelValue('a/b'), labelValue('a_b'));
  assert.notEqual(labelValue('feature/x'), labelValue('feature-x'));
  assert.match(labelValue('prod-eks/sluice-builds'), /^prod-eks-sluice-builds-[0-9a-f]{8}$/);
  assert.match(labelValue('---'), /^[0-9a-f]{8}$/);
});

test("a runtime's selector names Sluice and the runtime's label value", () => {
  assert.equal(runtimeSelector('ci'), 'app.kubernetes.io/managed-by=sluice,sluice.io/runtime=ci');
  assert.equal(
    runtimeSelector('a/b'),
    `app.kubernetes.io/managed-by=sluice,sluice.io/runtime=${labelValue('a/b')}`,
  );
});
