/**
 * Whether the connection to an API server (and the agent's to its control plane) goes through
 * a proxy, decided from HTTPS_PROXY, HTTP_PROXY and NO_PROXY the way Go's
 * `httpproxy.FromEnvironment` (so client-go, kubectl and the reference agent) decides: the proxy
 * of the server's scheme, upper-case names first; loopback hosts never; NO_PROXY entries are
 * `*`, host names (matching subdomains too; a leading `.` matches only subdomains), IP addresses
 * and CIDR ranges, each with an optional `:port`.
 * @module
 */
import { BlockList, isIP } from 'node:net';

export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** The proxy URL for connections to `server`, or undefined to connect directly. */
export function proxyUrlFor(server: string, env: ProxyEnv): string | undefined {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return undefined;
  }
  const scheme = url.protocol.replace(/:$/, '');
  const proxy =
    scheme === 'https'
      ? firstSet(env, 'HTTPS_PROXY', 'https_proxy')
      : firstSet(env, 'HTTP_PROXY', 'http_proxy');
  if (proxy === undefined) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port === '' ? (scheme === 'https' ? '443' : '80') : url.port;
  if (isLoopback(host)) return undefined;
  const noProxy = firstSet(env, 'NO_PROXY', 'no_proxy') ?? '';
  if (noProxy.split(',').some((entry) => excludes(entry.trim().toLowerCase(), host, port))) {
    return undefined;
  }
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

function firstSet(env: ProxyEnv, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && host === '::1';
}

/** Whether one NO_PROXY entry (trimmed, lower case) covers `host:port`. */
function excludes(entry: string, host: string, port: string): boolean {
  if (entry === '') return false;
  if (entry === '*') return true;
  if (entry.includes('/')) return inCidr(entry, host);
  const { name, entryPort } = splitPort(entry);
  if (entryPort !== undefined && entryPort !== port) return false;
  if (isIP(name) !== 0 || isIP(host) !== 0) return name === host;
  const domain = name.replace(/^\*\./, '.');
  if (domain.startsWith('.')) return host.endsWith(domain);
  return host === domain || host.endsWith(`.${domain}`);
}

function splitPort(entry: string): { name: string; entryPort: string | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) return { name: bracketed[1] ?? '', entryPort: bracketed[2] };
  if (isIP(entry) === 6) return { name: entry, entryPort: undefined };
  const match = /^(.*):(\d+)$/.exec(entry);
  return match === null
    ? { name: entry, entryPort: undefined }
    : { name: match[1] ?? '', entryPort: match[2] };
}

function inCidr(entry: string, host: string): boolean {
  const [network = '', bits = ''] = entry.split('/');
  const family = isIP(network);
  const prefix = Number(bits);
  if (family === 0 || isIP(host) !== family || !Number.isInteger(prefix)) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  try {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return list.check(host, type);
  } catch {
    return false;
  }
}
