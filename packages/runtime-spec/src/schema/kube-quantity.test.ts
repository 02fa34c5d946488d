import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isQuantity, quantityValue, suggestQuantity } from './kube-quantity.js';

test('quantities Kubernetes accepts', () => {
  for (const text of [
    '16Gi',
    '500m',
    '1',
    '0.5',
    '.5',
    '1.',
    '100n',
    '2k',
    '3M',
    '1e3',
    '1E-2',
    '+1',
  ]) {
    assert.ok(isQuantity(text), text);
  }
});

test('quantities Kubernetes rejects', () => {
  for (const text of ['16GB', '16gi', '16 Gi', '1K', '-1', 'Gi', '', '1.2.3', '1Gib', '0x10']) {
    assert.ok(!isQuantity(text), text);
  }
});

test('quantityValue reads binary, decimal and exponent suffixes', () => {
  assert.equal(quantityValue('500m'), 0.5);
  assert.equal(quantityValue('1Ki'), 1024);
  assert.equal(quantityValue('2G'), 2e9);
  assert.equal(quantityValue('1e3'), 1000);
  assert.equal(quantityValue('16GB'), undefined);
});

test('suggestQuantity proposes the binary unit for the usual slips', () => {
  assert.equal(suggestQuantity('16GB'), '16Gi');
  assert.equal(suggestQuantity('512mb'), '512Mi');
  assert.equal(suggestQuantity('16 gi'), '16Gi');
  assert.equal(suggestQuantity('1K'), '1Ki');
  assert.equal(suggestQuantity('lots'), undefined);
});
