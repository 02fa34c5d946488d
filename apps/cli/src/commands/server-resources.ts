/**
 * What the kubectl-style commands (`get`, `create`, `delete`, `patch`) share: a client of the
 * server they were pointed at, and resources printed as a table, YAML or JSON.
 * @module
 */
import { stringify } from 'yaml';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { formatTable } from '../ui/terminal.js';

export type OutputFormat = 'table' | 'yaml' | 'json';

/** `--server` and `--token`, resolved (flags over SLUICE_SERVER and SLUICE_TOKEN). */
export interface ServerOptions {
  server: string;
  token: string;
}

export function serverClient(options: ServerOptions): SluiceClient {
  return createClient({ baseUrl: options.server, token: options.token });
}

export interface ResourceTable<T> {
  header: string[];
  row: (item: T) => string[];
}

/** JSON and YAML show `value` as the API returned it; a table has one row per resource. */
export function printResources<T>(
  term: Terminal,
  value: T | readonly T[],
  output: OutputFormat,
  table: ResourceTable<T>,
): void {
  if (output === 'json') term.out(JSON.stringify(value, null, 2));
  else if (output === 'yaml') term.out(stringify(value).trimEnd());
  else {
    const items: readonly T[] = Array.isArray(value) ? value : [value as T];
    for (const line of formatTable([table.header, ...items.map(table.row)])) term.out(line);
  }
}
