import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostAddressOfBridge } from './docker-host-address.js';
import type { BridgeNetwork, Interfaces } from './docker-host-address.js';

const interfaces: Interfaces = {
  lo: ['127.0.0.1'],
  eth0: ['10.1.2.3'],
  docker0: ['172.17.0.1'],
  br_build: ['192.168.77.1'],
};

/** What Debian's dockerd 20.10 reports for the default bridge when started fresh. */
const noGateway: BridgeNetwork = {
  Name: 'bridge',
  IPAM: { Config: [{ Subnet: '172.17.0.0/16' }] },
  Options: { 'com.docker.network.bridge.name': 'docker0' },
};

test('the IPAM gateway is taken when Docker gives one', () => {
  const network: BridgeNetwork = {
    ...noGateway,
    IPAM: { Config: [{ Subnet: '172.18.0.0/16', Gateway: '172.18.0.254' }] },
  };
  assert.deepEqual(hostAddressOfBridge(network, interfaces), {
    address: '172.18.0.254',
    source: 'ipam-gateway',
  });
});

test('an IPv6 gateway is passed over for the IPv4 one', () => {
  const network: BridgeNetwork = {
    ...noGateway,
    IPAM: {
      Config: [
        { Subnet: 'fd00::/64', Gateway: 'fd00::1' },
        { Subnet: '172.17.0.0/16', Gateway: '172.17.0.1' },
      ],
    },
  };
  assert.equal(hostAddressOfBridge(network, interfaces)?.address, '172.17.0.1');
});

test("without a gateway the bridge interface's address is taken", () => {
  const on = { ...interfaces, docker0: ['172.17.9.9'] };
  assert.deepEqual(hostAddressOfBridge(noGateway, on), {
    address: '172.17.9.9',
    source: 'bridge-interface',
  });
});

test('the interface is the one the network names, and its address must be in the subnet', () => {
  const custom: BridgeNetwork = {
    Name: 'builds',
    IPAM: { Config: [{ Subnet: '192.168.77.0/24', Gateway: '' }] },
    Options: { 'com.docker.network.bridge.name': 'br_build' },
  };
  assert.deepEqual(hostAddressOfBridge(custom, interfaces), {
    address: '192.168.77.1',
    source: 'bridge-interface',
  });
  // An address outside the subnet (another network's) is not the host's address on this one.
  const outside = { ...interfaces, br_build: ['10.9.9.9'] };
  assert.deepEqual(hostAddressOfBridge(custom, outside), {
    address: '192.168.77.1',
    source: 'subnet-first-host',
  });
});

test("the default bridge's interface is docker0 when the option is missing", () => {
  const { Options: _options, ...bare } = noGateway;
  assert.equal(hostAddressOfBridge(bare, interfaces)?.source, 'bridge-interface');
});

test("without a gateway or an interface address the subnet's first host is taken", () => {
  assert.deepEqual(hostAddressOfBridge(noGateway, { lo: interfaces['lo'] }), {
    address: '172.17.0.1',
    source: 'subnet-first-host',
  });
  const odd: BridgeNetwork = { Name: 'x', IPAM: { Config: [{ Subnet: '10.200.3.77/20' }] } };
  assert.equal(hostAddressOfBridge(odd, {})?.address, '10.200.0.1');
});

test('nothing usable gives undefined', () => {
  assert.equal(hostAddressOfBridge({ Name: 'bridge', IPAM: { Config: null } }, {}), undefined);
  assert.equal(hostAddressOfBridge({ Name: 'x', IPAM: null }, interfaces), undefined);
  const malformed: BridgeNetwork = {
    Name: 'x',
    IPAM: { Config: [{ Subnet: '300.1.1.0/24', Gateway: 'nonsense' }, { Subnet: '10.0.0.0/32' }] },
  };
  assert.equal(hostAddressOfBridge(malformed, {}), undefined);
});
