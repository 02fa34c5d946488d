/**
 * `sluice get registries [-o yaml|json]`, `sluice create registry NAME --domain HOST[:PORT]
 * [--username U] [--password-stdin] [--default]` and `sluice delete registry NAME`, kubectl
 * style, through the control plane's API. Passwords go in on standard input only and never
 * come back.
 * @module
 */
import { stringify } from 'yaml';
import { createClient } from '@sluice/protocol';
import type { Registry } from '@sluice/protocol';
import { readSecretStdin } from '../read-secret-stdin.js';
import type { Terminal } from '../ui/terminal.js';
import { formatTable } from '../ui/terminal.js';
import type { OutputFormat } from './runtime-environments.js';

export interface ServerOptions {
  server: string;
  token: string;
}

export async function getRegistries(
  term: Terminal,
  options: ServerOptions & { output: OutputFormat },
): Promise<number> {
  const client = createClient({ baseUrl: options.server, token: options.token });
  const { items } = await client.call('listRegistries');
  if (options.output === 'json') term.out(JSON.stringify(items, null, 2));
  else if (options.output === 'yaml') term.out(stringify(items).trimEnd());
  else printTable(term, items);
  return 0;
}

function printTable(term: Terminal, items: readonly Registry[]): void {
  const rows = items.map((r) => [
    r.name,
    r.domain,
    r.username ?? '',
    r.hasPassword ? 'yes' : '',
    r.default ? 'yes' : '',
  ]);
  for (const line of formatTable([['NAME', 'DOMAIN', 'USERNAME', 'PASSWORD', 'DEFAULT'], ...rows]))
    term.out(line);
}

export interface CreateRegistryOptions extends ServerOptions {
  domain: string;
  username?: string;
  passwordStdin?: boolean;
  default?: boolean;
}

export async function createRegistry(
  term: Terminal,
  name: string,
  options: CreateRegistryOptions,
  readStdin?: () => string,
): Promise<number> {
  const password = options.passwordStdin
    ? readSecretStdin('--password-stdin', readStdin)
    : undefined;
  const client = createClient({ baseUrl: options.server, token: options.token });
  const registry = await client.call('putRegistry', {
    params: { name },
    body: {
      domain: options.domain,
      username: options.username,
      password,
      default: options.default ? true : undefined,
    },
  });
  term.out(`registry/${registry.name} saved${registry.default ? ' (default)' : ''}`);
  return 0;
}

export async function deleteRegistry(
  term: Terminal,
  name: string,
  options: ServerOptions,
): Promise<number> {
  const client = createClient({ baseUrl: options.server, token: options.token });
  await client.call('deleteRegistry', { params: { name } });
  term.out(`registry/${name} deleted`);
  return 0;
}
