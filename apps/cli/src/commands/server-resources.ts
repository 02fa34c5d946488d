/**
 * What the kubectl-style commands (`get`, `create`, `delete`, `patch`, `run-pipeline`, ...)
 * share: a client of the server they were pointed at, whose two common failures (server
 * unreachable, token refused) become one line naming the context, the URL and what to do; and
 * resources printed as a table (fitted to the terminal, `wide` with more columns), YAML or JSON.
 * @module
 */
import { AuthenticationError, isSluiceError, UnavailableError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import type { ServerTarget } from '../config.js';
import { httpFetch } from '@sluice/protocol/node';
import { yaml } from '../lazy-yaml.js';
import { safeJson } from '../ui/safe-text.js';
import type { Terminal } from '../ui/terminal.js';
import { fitTable } from '../ui/terminal.js';

export type OutputFormat = 'table' | 'wide' | 'yaml' | 'json';

/** The server, the token and where they came from (flags, environment, a context). */
export type ServerOptions = ServerTarget;

export function serverClient(options: ServerOptions): SluiceClient {
  const client = createClient({ baseUrl: options.server, token: options.token, fetch: httpFetch });
  return explained(client, options);
}

function explained(client: SluiceClient, target: ServerOptions): SluiceClient {
  const rethrow = (err: unknown): never => {
    throw explainServerError(err, target);
  };
  return {
    call: (name, input) => client.call(name, input).catch(rethrow),
    raw: (name, input) => client.raw(name, input).catch(rethrow),
    withToken: (token) => explained(client.withToken(token), { ...target, token }),
  };
}

/** Unreachable and refused-token errors as one line: which context, which URL, what to do. */
export function explainServerError(err: unknown, target: ServerOptions): unknown {
  if (!isSluiceError(err)) return err;
  const { source, server } = target;
  const origin =
    source.context !== undefined
      ? `context "${source.context}"`
      : source.server === '--server'
        ? '--server'
        : 'SLUICE_SERVER';
  const recreate = `sluice auth create-context ${source.context ?? 'NAME'} --url URL --token-stdin`;
  if (err.code === 'SLUICE_API_UNREACHABLE') {
    const fix =
      source.server === 'context'
        ? `start the server, or point the context at it: ${recreate}`
        : `start the server, or fix ${source.server}`;
    return new UnavailableError(
      'SLUICE_API_UNREACHABLE',
      `Cannot reach the Sluice server at ${server} (${origin}): ${networkReason(err.cause)}; ${fix}`,
      { cause: err },
    );
  }
  if (err instanceof AuthenticationError) {
    const fix =
      source.token === 'context'
        ? `store a valid token: ${recreate.replace('URL', server)}`
        : source.token === '--token'
          ? 'pass a valid user token with --token'
          : 'set SLUICE_TOKEN to a valid user token';
    return new AuthenticationError(
      err.code,
      `The Sluice server at ${server} (${origin}) refused the token: ${err.message.replace(/\.$/, '')}; ${fix}`,
      { cause: err },
    );
  }
  return err;
}

/** `ECONNREFUSED`, `ENOTFOUND`, ... from fetch's nested causes. */
function networkReason(cause: unknown): string {
  let reason = 'no answer';
  for (let c = cause, depth = 0; c instanceof Error && depth < 5; depth++, c = c.cause) {
    const code = (c as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code !== 'SLUICE_API_UNREACHABLE') return code;
    reason = c.message;
  }
  return reason;
}

export interface ResourceTable<T> {
  header: string[];
  row: (item: T) => string[];
  /** More columns for `-o wide`. */
  wide?: { header: string[]; row: (item: T) => string[] };
  /** Columns never cut to fit the width (default: the first, the name). */
  keep?: number[];
}

export interface PrintOptions {
  /** The width a table must fit in. */
  columns?: number;
}

/**
 * JSON and YAML show `value` as the API returned it (a list as `{kind: List, items}`); a table
 * has one row per resource and fits the width given.
 */
export function printResources<T>(
  term: Terminal,
  value: T | readonly T[],
  output: OutputFormat,
  table: ResourceTable<T>,
  options: PrintOptions = {},
): void {
  if (output === 'json' || output === 'yaml') {
    printDocument(term, Array.isArray(value) ? { kind: 'List', items: value } : value, output);
    return;
  }
  const items: readonly T[] = Array.isArray(value) ? value : [value as T];
  const wide = output === 'wide' ? table.wide : undefined;
  const header = [...table.header, ...(wide?.header ?? [])];
  const rows = items.map((item) => [...table.row(item), ...(wide?.row(item) ?? [])]);
  if (rows.length === 0) {
    term.err('No resources found');
    return;
  }
  // `-o wide` is for reading everything, as kubectl's: nothing is cut.
  const width = output === 'wide' ? Infinity : (options.columns ?? 100);
  for (const [i, line] of fitTable([header, ...rows], width, table.keep).entries())
    term.out(i === 0 ? term.paint('bold', line) : line);
}

export function printDocument(term: Terminal, value: unknown, output: 'json' | 'yaml'): void {
  if (output === 'json') term.out(safeJson(value, 2));
  else term.out(yaml().stringify(value, { lineWidth: 0 }).trimEnd());
}
