/**
 * `sluice get registries [-o yaml|json]`, `sluice create registry NAME --domain HOST[:PORT]
 * [--username U] [--password-stdin] [--default]` and `sluice delete registry NAME`, kubectl
 * style, through the control plane's API. Passwords go in on standard input only and never
 * come back.
 * @module
 */
import type { Registry } from '@sluice/protocol';
import { readSecretStdin } from '../read-secret-stdin.js';
import type { Terminal } from '../ui/terminal.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

const TABLE = {
  header: ['NAME', 'DOMAIN', 'USERNAME', 'PASSWORD', 'DEFAULT'],
  row: (r: Registry) => [
    r.name,
    r.domain,
    r.username ?? '',
    r.hasPassword ? 'yes' : '',
    r.default ? 'yes' : '',
  ],
};

export async function getRegistries(
  term: Terminal,
  options: ServerOptions & { output: OutputFormat },
): Promise<number> {
  const { items } = await serverClient(options).call('listRegistries');
  printResources(term, items, options.output, TABLE);
  return 0;
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
  const registry = await serverClient(options).call('putRegistry', {
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
  await serverClient(options).call('deleteRegistry', { params: { name } });
  term.out(`registry/${name} deleted`);
  return 0;
}
