/**
 * The address at which containers on this machine's Docker engine reach the host: its one home,
 * for the test kit's git, SSH and HTTP servers and every test that gives a step container a URL
 * of the host. The host owns the default bridge's address, so a container on any bridge network
 * reaches it there. Docker does not always say which address that is: Debian's dockerd 20.10,
 * started fresh, reports the bridge's IPAM config with a `Subnet` and no `Gateway`, while the
 * `docker0` interface holds `172.17.0.1`. So the address comes from, in order:
 * 1. the bridge network's IPAM gateway, when Docker gives one;
 * 2. else the IPv4 address of the bridge's interface (`com.docker.network.bridge.name`,
 *    `docker0` for the default bridge), inside the subnet when one is known;
 * 3. else the subnet's first host (`172.17.0.0/16` → `172.17.0.1`), which is what dockerd
 *    gives its bridge when nothing else is configured.
 * @module
 */
import { UnavailableError } from '@sluice/errors';
import { runCommand } from './run-command.js';

export const DOCKER_HOST_ADDRESS_UNAVAILABLE = 'SLUICE_TEST_DOCKER_HOST_ADDRESS_UNAVAILABLE';

/** The part of `docker network inspect` this module reads. */
export interface BridgeNetwork {
  Name?: string;
  IPAM?: { Config?: { Subnet?: string; Gateway?: string }[] | null } | null;
  Options?: Record<string, string> | null;
}

export type HostAddressSource = 'ipam-gateway' | 'bridge-interface' | 'subnet-first-host';

export interface HostAddress {
  address: string;
  /** Where it came from: the reason a test's failure message can name. */
  source: HostAddressSource;
}

/**
 * The IPv4 addresses of the host's interfaces by name. Not `os.networkInterfaces()`: it leaves
 * out an interface that is not running, and `docker0` is not while no container is attached.
 */
export type Interfaces = Record<string, readonly string[] | undefined>;

const BRIDGE_NAME_OPTION = 'com.docker.network.bridge.name';
const DEFAULT_BRIDGE_INTERFACE = 'docker0';

/** Pure: the host's address on `network`, or undefined when none of the three sources has one. */
export function hostAddressOfBridge(
  network: BridgeNetwork,
  interfaces: Interfaces,
): HostAddress | undefined {
  const configs = (network.IPAM?.Config ?? []).filter((c) => isIpv4Cidr(c.Subnet ?? ''));
  const gateway = configs.map((c) => c.Gateway ?? '').find(isIpv4);
  if (gateway !== undefined) return { address: gateway, source: 'ipam-gateway' };
  const subnets = configs.map((c) => c.Subnet as string);
  const onInterface = interfaceAddress(network, interfaces, subnets);
  if (onInterface !== undefined) return { address: onInterface, source: 'bridge-interface' };
  const first = subnets.map(firstHost).find((a) => a !== undefined);
  if (first !== undefined) return { address: first, source: 'subnet-first-host' };
  return undefined;
}

function interfaceAddress(
  network: BridgeNetwork,
  interfaces: Interfaces,
  subnets: readonly string[],
): string | undefined {
  const name = bridgeInterfaceName(network);
  if (name === undefined) return undefined;
  const addresses = (interfaces[name] ?? []).filter(isIpv4);
  if (subnets.length === 0) return addresses[0];
  return addresses.find((address) => subnets.some((subnet) => inSubnet(address, subnet)));
}

/** The host's interface of a bridge network, by its option or as the default bridge's. */
export function bridgeInterfaceName(network: BridgeNetwork): string | undefined {
  return (
    network.Options?.[BRIDGE_NAME_OPTION] ??
    (network.Name === 'bridge' ? DEFAULT_BRIDGE_INTERFACE : undefined)
  );
}

/** `ip -4 addr` of the interfaces named (all when none is): their IPv4 addresses by name. */
export async function interfaceAddresses(...names: string[]): Promise<Interfaces> {
  const found: Record<string, string[]> = {};
  for (const name of names.length > 0 ? names : [undefined]) {
    const args = ['-j', '-4', 'addr', 'show', ...(name === undefined ? [] : ['dev', name])];
    const result = await runCommand('ip', args);
    if (result.code !== 0) continue; // No such interface (or no iproute2): no address from it.
    const links = JSON.parse(result.stdout) as {
      ifname: string;
      addr_info?: { family: string; local: string }[];
    }[];
    for (const link of links) {
      found[link.ifname] = (link.addr_info ?? [])
        .filter((a) => a.family === 'inet')
        .map((a) => a.local);
    }
  }
  return found;
}

/**
 * The address containers on this machine's Docker engine reach the host at (the default
 * bridge's, by the rules above), for the Docker engine the `docker` CLI talks to.
 */
export async function dockerHostAddress(): Promise<string> {
  const result = await runCommand('docker', [
    'network',
    'inspect',
    'bridge',
    '--format',
    '{{json .}}',
  ]);
  if (result.code !== 0) {
    throw new UnavailableError(
      DOCKER_HOST_ADDRESS_UNAVAILABLE,
      "Could not inspect the Docker engine's default bridge network",
      {
        hint: `docker network inspect bridge: ${result.stderr.trim() || `exit ${result.code}`}; is dockerd running (bash scripts/test.sh starts it)?`,
      },
    );
  }
  let network: BridgeNetwork;
  try {
    network = JSON.parse(result.stdout) as BridgeNetwork;
  } catch {
    throw new UnavailableError(
      DOCKER_HOST_ADDRESS_UNAVAILABLE,
      "docker network inspect bridge did not print the network's JSON",
      { hint: `it printed ${JSON.stringify(result.stdout.slice(0, 500))}; check the docker CLI` },
    );
  }
  const name = bridgeInterfaceName(network);
  const found = hostAddressOfBridge(
    network,
    name === undefined ? {} : await interfaceAddresses(name),
  );
  if (found === undefined) {
    throw new UnavailableError(
      DOCKER_HOST_ADDRESS_UNAVAILABLE,
      "The Docker bridge's host address is unknown: no IPAM gateway, no address on its interface and no IPv4 subnet",
      { hint: `docker network inspect bridge gave ${result.stdout.trim().slice(0, 500)}` },
    );
  }
  return found.address;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function ipv4ToNumber(address: string): number | undefined {
  const match = IPV4.exec(address);
  if (match === null) return undefined;
  const parts = match.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

function numberToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

function isIpv4(address: string): boolean {
  return ipv4ToNumber(address) !== undefined;
}

function parseCidr(cidr: string): { base: number; size: number } | undefined {
  const [address = '', bits = ''] = cidr.split('/');
  const n = ipv4ToNumber(address);
  const prefix = /^\d{1,2}$/.test(bits) ? Number(bits) : NaN;
  if (n === undefined || !(prefix >= 0 && prefix <= 32)) return undefined;
  const size = 2 ** (32 - prefix);
  return { base: n - (n % size), size };
}

function isIpv4Cidr(cidr: string): boolean {
  return parseCidr(cidr) !== undefined;
}

function inSubnet(address: string, cidr: string): boolean {
  const n = ipv4ToNumber(address);
  const subnet = parseCidr(cidr);
  return (
    n !== undefined && subnet !== undefined && n >= subnet.base && n < subnet.base + subnet.size
  );
}

/** The subnet's first host address; undefined for a /31 or /32, which have none to spare. */
function firstHost(cidr: string): string | undefined {
  const subnet = parseCidr(cidr);
  if (subnet === undefined || subnet.size < 4) return undefined;
  return numberToIpv4(subnet.base + 1);
}
