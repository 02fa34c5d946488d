/**
 * Pure renderers for a test node's configuration: a private containerd (its own root, state,
 * socket and runc root; the CRI plugin on; the local pause image; `restrict_oom_score_adj`,
 * since root here lacks CAP_SYS_RESOURCE and runc fails on a negative oom_score_adj), the CNI
 * bridge network (host-local IPAM on a private /24, no masquerading) and the kubelet's
 * configuration (loopback only, webhook authn/authz, cgroupfs, low eviction thresholds).
 * Every path lives under the cluster's directory so teardown removes all of it.
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PAUSE_IMAGE = 'docker.io/sluice/pause:1';

export interface NodeLayout {
  /** The cluster's state directory. */
  dir: string;
  nodeName: string;
  bridge: string;
  /** The pod network, e.g. 10.244.17.0/24. */
  podSubnet: string;
  /** The cgroup (in every hierarchy) that holds all pods, e.g. /sluice-ab12cd. */
  cgroupRoot: string;
  kubeletPort: number;
  caFile: string;
  kubeletCert: string;
  kubeletKey: string;
}

export function containerdPaths(dir: string) {
  const base = join(dir, 'containerd');
  return {
    config: join(base, 'config.toml'),
    root: join(base, 'root'),
    state: join(base, 'state'),
    socket: join(base, 'containerd.sock'),
    /** Per-registry `hosts.toml` files (read at each pull): `trustHttpRegistry` writes one. */
    registryHosts: join(base, 'certs.d'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    ipamDir: join(dir, 'cni', 'ipam'),
  };
}

export function containerdConfig(layout: NodeLayout): string {
  const paths = containerdPaths(layout.dir);
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    'version = 2',
    `root = ${toml(paths.root)}`,
    `state = ${toml(paths.state)}`,
    'disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]',
    '',
    '[grpc]',
    `  address = ${toml(paths.socket)}`,
    '',
    `[plugins."io.containerd.internal.v1.opt"]`,
    `  path = ${toml(join(paths.root, 'opt'))}`,
    '',
    `[${cri}]`,
    `  sandbox_image = ${toml(PAUSE_IMAGE)}`,
    '  restrict_oom_score_adj = true',
    '  netns_mounts_under_state_dir = true',
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    '  enable_selinux = false',
    '',
    `[${cri}.registry]`,
    `  config_path = ${toml(paths.registryHosts)}`,
    '',
    `[${cri}.containerd]`,
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    '',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    '',
    `[${cri}.containerd.runtimes.runc.options]`,
    '  SystemdCgroup = false',
    `  Root = ${toml(join(paths.state, 'runc'))}`,
    '',
    `[${cri}.cni]`,
    '  bin_dir = "/usr/lib/cni"',
    `  conf_dir = ${toml(paths.cniConfDir)}`,
    '',
  ].join('\n');
}

/** The CNI network: a bridge the test created, addresses from a /24 kept under the cluster dir. */
export function cniConflist(layout: NodeLayout): string {
  const paths = containerdPaths(layout.dir);
  const config = {
    cniVersion: '0.4.0',
    name: `sluice-${layout.bridge}`,
    plugins: [
      {
        type: 'bridge',
        bridge: layout.bridge,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: layout.podSubnet }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: paths.ipamDir,
        },
      },
    ],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export function kubeletConfig(layout: NodeLayout): string {
  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: '127.0.0.1',
    port: layout.kubeletPort,
    readOnlyPort: 0,
    healthzPort: 0,
    tlsCertFile: layout.kubeletCert,
    tlsPrivateKeyFile: layout.kubeletKey,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: layout.caFile },
    },
    authorization: { mode: 'Webhook' },
    cgroupDriver: 'cgroupfs',
    cgroupRoot: layout.cgroupRoot,
    failSwapOn: false,
    // The kubelet would add KUBE-* chains to the host's filter and nat tables and keep them.
    makeIPTablesUtilChains: false,
    // The device manager's socket is fixed at /var/lib/kubelet/device-plugins/, outside the
    // cluster's directory; tests use no device plugins.
    featureGates: { DevicePlugins: false },
    // The test machine's disk and memory are what they are; never evict test pods.
    evictionHard: {
      'memory.available': '1Mi',
      'nodefs.available': '1%',
      'imagefs.available': '1%',
      'nodefs.inodesFree': '1%',
    },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    clusterDomain: 'cluster.local',
    resolvConf: '/etc/resolv.conf',
    serializeImagePulls: false,
    maxPods: 50,
    // The node turns Ready at the first status update after the runtime's network is up; at the
    // default 10 s that wait is most of a test node's start. Unchanged status is not re-posted.
    nodeStatusUpdateFrequency: '1s',
    nodeStatusReportFrequency: '1m',
    // Kubernetes 1.27's defaults (50 requests a second, burst 100; 5 and 10 before): at 1.20's
    // the one node's pod status updates queued behind each other, and a started container or a
    // passed readiness probe reached the API server 5 to 10 seconds late (bench/kube-build: a
    // warm-pool pod ready in 12.2 s, 2.5 s with these).
    kubeAPIQPS: 50,
    kubeAPIBurst: 100,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export interface KubeletFiles {
  config: string;
  kubeconfig: string;
  /** containerd's socket. */
  socket: string;
}

/** 1.20 flags: the CRI runtime is remote (containerd), and every directory is the cluster's. */
export function kubeletArgs(layout: NodeLayout, files: KubeletFiles): string[] {
  const nodeDir = join(layout.dir, 'node');
  return [
    `--config=${files.config}`,
    `--kubeconfig=${files.kubeconfig}`,
    '--container-runtime=remote',
    `--container-runtime-endpoint=unix://${files.socket}`,
    `--hostname-override=${layout.nodeName}`,
    `--root-dir=${join(layout.dir, 'kubelet')}`,
    `--cert-dir=${join(nodeDir, 'pki')}`,
    `--volume-plugin-dir=${join(nodeDir, 'volume-plugins')}`,
  ];
}

function toml(value: string): string {
  return JSON.stringify(value);
}

/**
 * Lets the node's containerd pull from a plain-HTTP registry at `address` (`host:port`), as a
 * cluster whose nodes trust an internal registry would: a `hosts.toml` beside its config, read at
 * each pull, so no restart is needed.
 */
export function trustHttpRegistry(containerdSocket: string, address: string): void {
  const dir = join(dirname(containerdSocket), 'certs.d', address);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'hosts.toml'),
    `server = "http://${address}"\n\n[host."http://${address}"]\n  capabilities = ["pull", "resolve"]\n`,
  );
}
