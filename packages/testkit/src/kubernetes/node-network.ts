/**
 * The host side of a test node's pod network: a bridge the test creates, a /24 that no route on
 * the machine uses yet, and one iptables rule accepting forwarding within the bridge only
 * (dockerd sets the FORWARD policy to DROP, which would cut pods off from each other). Nothing
 * else on the host is touched, and every piece is removed by name on teardown.
 * @module
 */
import { runCommand, tailLines } from '../run-command.js';
import { KUBE_UNAVAILABLE, stepFailed } from './kube-errors.js';

/** Subnets are taken from 10.244.0.0/16 (the usual pod range), one /24 per cluster. */
const SUBNET_PREFIX = '10.244';

/** The FORWARD rule for a bridge, as iptables arguments after the chain name. */
export function forwardRule(bridge: string, clusterId: string): string[] {
  return [
    '-i',
    bridge,
    '-o',
    bridge,
    '-m',
    'comment',
    '--comment',
    `sluice test cluster ${clusterId}`,
    '-j',
    'ACCEPT',
  ];
}

/**
 * A 10.244.N.0/24 that overlaps none of `usedCidrs` (the machine's routes), starting at a
 * position derived from `seed` so concurrent clusters rarely race for the same one.
 */
export function chooseSubnet(usedCidrs: readonly string[], seed: number): string | undefined {
  for (let i = 0; i < 254; i++) {
    const n = ((seed + i) % 254) + 1;
    const candidate = `${SUBNET_PREFIX}.${n}.0/24`;
    if (!usedCidrs.some((used) => overlaps(used, candidate))) return candidate;
  }
  return undefined;
}

/** Whether two IPv4 CIDRs share an address. */
export function overlaps(a: string, b: string): boolean {
  const [aBase, aBits] = parseCidr(a);
  const [bBase, bBits] = parseCidr(b);
  const bits = Math.min(aBits, bBits);
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (aBase & mask) >>> 0 === (bBase & mask) >>> 0;
}

function parseCidr(cidr: string): [number, number] {
  const [address = '0.0.0.0', bits = '32'] =
    cidr === 'default' ? ['0.0.0.0', '0'] : cidr.split('/');
  const octets = address.split('.').map(Number);
  const base = octets.reduce((acc, octet) => ((acc << 8) | (octet & 255)) >>> 0, 0);
  return [base, Number(bits)];
}

/** The destination CIDRs of the machine's IPv4 routes (`ip -4 route`), in CIDR form. */
export async function usedRoutes(): Promise<string[]> {
  const result = await ip(['-4', 'route', 'show', 'table', 'all'], 'list the routes');
  return result
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((dst) => /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(dst))
    .map((dst) => (dst.includes('/') ? dst : `${dst}/32`));
}

export async function createBridge(bridge: string): Promise<void> {
  await ip(['link', 'add', bridge, 'type', 'bridge'], `create the bridge ${bridge}`);
  await ip(['link', 'set', bridge, 'up'], `bring the bridge ${bridge} up`);
}

/** Deletes the veths still attached to the bridge, then the bridge; a no-op when it is gone. */
export async function deleteBridge(bridge: string): Promise<void> {
  if (!(await linkExists(bridge))) return;
  const ports = await runCommand('ip', ['-o', 'link', 'show', 'master', bridge]);
  for (const line of ports.stdout.split('\n')) {
    const name = /^\d+:\s+([^:@\s]+)/.exec(line)?.[1];
    if (name !== undefined) await runCommand('ip', ['link', 'delete', name]);
  }
  await ip(['link', 'delete', bridge], `delete the bridge ${bridge}`);
}

export async function linkExists(name: string): Promise<boolean> {
  return (await runCommand('ip', ['link', 'show', name])).code === 0;
}

export async function addForwardRule(rule: readonly string[]): Promise<void> {
  const result = await runCommand('iptables', ['-w', '-I', 'FORWARD', '1', ...rule]);
  if (result.code !== 0) {
    throw stepFailed(
      KUBE_UNAVAILABLE,
      'Starting the test node',
      `iptables -I FORWARD 1 ${rule.join(' ')}`,
      {
        output: result.spawnError?.message ?? tailLines(result.stderr, 5),
        hint: 'apt-get install -y iptables (the tests run as root)',
      },
    );
  }
}

export async function forwardRuleExists(rule: readonly string[]): Promise<boolean> {
  return (await runCommand('iptables', ['-w', '-C', 'FORWARD', ...rule])).code === 0;
}

/** Deletes every copy of the rule (a crashed run may have left one). */
export async function removeForwardRule(rule: readonly string[]): Promise<void> {
  for (let i = 0; i < 10 && (await forwardRuleExists(rule)); i++) {
    await runCommand('iptables', ['-w', '-D', 'FORWARD', ...rule]);
  }
}

async function ip(args: readonly string[], step: string): Promise<string> {
  const result = await runCommand('ip', args);
  if (result.code !== 0) {
    throw stepFailed(
      KUBE_UNAVAILABLE,
      'Setting up the pod network',
      `${step} (ip ${args.join(' ')})`,
      {
        output: result.spawnError?.message ?? tailLines(result.stderr, 5),
        hint: 'apt-get install -y iproute2 (the tests run as root)',
      },
    );
  }
  return result.stdout;
}
