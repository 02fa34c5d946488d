import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  bridgeInterfaceName,
  dockerHostAddress,
  hostAddressOfBridge,
  interfaceAddresses,
} from './docker-host-address.js';
import type { BridgeNetwork } from './docker-host-address.js';
import { ensureDockerEngine } from './docker-engine.js';
import { runCommand } from './run-command.js';
import { ensureTestImages, TEST_IMAGES } from './test-images.js';

async function inspectBridge(): Promise<BridgeNetwork> {
  const result = await runCommand('docker', [
    'network',
    'inspect',
    'bridge',
    '--format',
    '{{json .}}',
  ]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as BridgeNetwork;
}

test(
  'a container on the default bridge reaches a server of the host at dockerHostAddress()',
  { timeout: 180_000 },
  async () => {
    await ensureDockerEngine();
    await ensureTestImages({ only: 'busybox' });
    const address = await dockerHostAddress();
    const mine = Object.values(await interfaceAddresses()).flat();
    assert.ok(
      mine.includes(address),
      `${address} is not an address of this machine: ${mine.join(', ')}`,
    );
    const server = createServer((_req, res) => res.end('from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await runCommand('docker', [
        'run',
        '--rm',
        TEST_IMAGES.shell,
        'wget',
        '-q',
        '-O',
        '-',
        `http://${address}:${port}/`,
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, 'from the host\n');
    } finally {
      server.close();
    }
  },
);

test('the live bridge inspected without its gateway gives the same address', async () => {
  const live = await inspectBridge();
  const name = bridgeInterfaceName(live);
  assert.ok(name !== undefined);
  const interfaces = await interfaceAddresses(name);
  const withGateway = hostAddressOfBridge(live, interfaces);
  assert.ok(withGateway !== undefined);
  // What Debian's dockerd 20.10 reports when started fresh: the subnet without a gateway.
  const stripped: BridgeNetwork = {
    ...live,
    IPAM: { Config: (live.IPAM?.Config ?? []).map(({ Subnet }) => ({ Subnet })) },
  };
  const fallback = hostAddressOfBridge(stripped, interfaces);
  assert.equal(fallback?.source, 'bridge-interface');
  assert.equal(fallback?.address, withGateway.address);
});
