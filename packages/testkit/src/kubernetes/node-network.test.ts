import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseSubnet, forwardRule } from './node-network.js';

test('chooseSubnet starts from the seed and skips /24s the machine already routes', () => {
  assert.equal(chooseSubnet([], 0), '10.244.1.0/24');
  assert.equal(chooseSubnet(['10.244.1.0/24', '10.244.2.5/32'], 0), '10.244.3.0/24');
  assert.equal(chooseSubnet(['192.168.0.0/16'], 9), '10.244.10.0/24');
});

test('chooseSubnet gives nothing when a wider route covers the whole range', () => {
  assert.equal(chooseSubnet(['10.0.0.0/8'], 3), undefined);
});

test('the FORWARD rule only accepts traffic within the bridge and names the cluster', () => {
  assert.deepEqual(forwardRule('slkabc', 'abc'), [
    '-i',
    'slkabc',
    '-o',
    'slkabc',
    '-m',
    'comment',
    '--comment',
    'sluice test cluster abc',
    '-j',
    'ACCEPT',
  ]);
});
