import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cniConflist, containerdConfig, containerdPaths, kubeletConfig } from './node-config.js';
import type { NodeLayout } from './node-config.js';

const layout: NodeLayout = {
  dir: '/tmp/sluice-kube-abc123',
  nodeName: 'localhost',
  bridge: 'slkabc123',
  podSubnet: '10.244.7.0/24',
  cgroupRoot: '/sluice-abc123',
  kubeletPort: 41000,
  caFile: '/tmp/sluice-kube-abc123/pki/ca.crt',
  kubeletCert: '/tmp/sluice-kube-abc123/pki/kubelet.crt',
  kubeletKey: '/tmp/sluice-kube-abc123/pki/kubelet.key',
};

test('containerd keeps every path under the cluster dir and cannot set a negative oom_score_adj', () => {
  const toml = containerdConfig(layout);
  const paths = containerdPaths(layout.dir);
  assert.match(toml, /^version = 2$/m);
  assert.ok(toml.includes(`root = "${paths.root}"`));
  assert.ok(toml.includes(`state = "${paths.state}"`));
  assert.ok(toml.includes(`address = "${paths.socket}"`));
  assert.ok(
    toml.includes(`Root = "${paths.state}/runc"`),
    'runc state must not go to /run/containerd/runc',
  );
  assert.match(toml, /restrict_oom_score_adj = true/);
  assert.match(toml, /netns_mounts_under_state_dir = true/);
  assert.match(toml, /sandbox_image = "docker\.io\/sluice\/pause:1"/);
  assert.match(toml, /SystemdCgroup = false/);
  for (const line of toml.split('\n').filter((l) => l.includes('"/'))) {
    assert.ok(
      line.includes(layout.dir) || line.includes('/usr/lib/cni'),
      `path outside the cluster dir: ${line}`,
    );
  }
});

test('the CNI network is the test bridge with a private /24 and no masquerading', () => {
  const config = JSON.parse(cniConflist(layout)) as {
    plugins: {
      type: string;
      bridge: string;
      ipMasq: boolean;
      ipam: { ranges: { subnet: string }[][]; dataDir: string };
    }[];
  };
  const [bridge] = config.plugins;
  assert.equal(bridge?.type, 'bridge');
  assert.equal(bridge?.bridge, 'slkabc123');
  assert.equal(bridge?.ipMasq, false);
  assert.equal(bridge?.ipam.ranges[0]?.[0]?.subnet, '10.244.7.0/24');
  assert.ok(bridge?.ipam.dataDir.startsWith(layout.dir));
});

test('the kubelet listens on loopback, uses webhook auth and leaves host iptables alone', () => {
  const config = JSON.parse(kubeletConfig(layout)) as Record<string, unknown>;
  assert.equal(config['address'], '127.0.0.1');
  assert.equal(config['port'], 41000);
  assert.equal(config['readOnlyPort'], 0);
  assert.equal(config['cgroupDriver'], 'cgroupfs');
  assert.equal(config['cgroupRoot'], '/sluice-abc123');
  assert.equal(config['makeIPTablesUtilChains'], false);
  assert.deepEqual(config['authorization'], { mode: 'Webhook' });
  assert.deepEqual(config['featureGates'], { DevicePlugins: false });
});
