/**
 * `sluice auth create-context NAME --url URL --token-stdin`, `use-context NAME`,
 * `get-contexts`, `current-context` and `delete-context NAME`: the servers the CLI talks to,
 * kept in the contexts file (0600). Creating a context checks the token against the server
 * first (`GET /api/v1/me`), so a typo is found now, not at the next build.
 * @module
 */
import { InputError, NotFoundError } from '@sluice/errors';
import {
  checkContextName,
  checkServerUrl,
  isExposed,
  readContexts,
  writeContexts,
} from '../contexts/context-file.js';
import { readSecretStdin } from '../read-secret-stdin.js';
import type { Terminal } from '../ui/terminal.js';
import { fitTable } from '../ui/terminal.js';
import { printDocument, serverClient } from './server-resources.js';

/** The contexts file, and whether its directory is the CLI's own (kept 0700). */
export interface ContextFileOptions {
  file: string;
  ownDirectory?: boolean;
}

export interface CreateContextOptions extends ContextFileOptions {
  url: string;
  tokenStdin?: boolean;
  token?: string;
  /** Do not ask the server whether the token is good (offline set-up). */
  noVerify?: boolean;
  /** Leave the current context as it is. */
  noUse?: boolean;
}

export async function createContext(
  term: Terminal,
  name: string,
  options: CreateContextOptions,
): Promise<number> {
  checkContextName(name);
  const url = checkServerUrl(options.url);
  const token = options.tokenStdin ? readSecretStdin('--token-stdin') : options.token;
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token))
    throw new InputError(
      'SLUICE_CLI_BAD_TOKEN',
      'The token has characters no Sluice token has (spaces, control characters or non-ASCII)',
      { hint: 'Pipe in the token exactly as sluice up or sluice create agent printed it' },
    );
  if (token === undefined || token === '')
    throw new InputError('SLUICE_CLI_NO_TOKEN', 'No token given for the context', {
      hint: `Pipe it in: sluice auth create-context ${name} --url ${url} --token-stdin < token-file`,
    });
  if (!options.noVerify) {
    const target = {
      server: url,
      token,
      source: { context: name, server: 'context', token: 'context' } as const,
    };
    const me = await serverClient(target).call('me');
    term.err(
      term.paint('dim', `Token checked: user ${me.user.name} of account ${me.account.name}`),
    );
  }
  const contexts = readContexts(options.file);
  const rest = contexts.contexts.filter((c) => c.name !== name);
  const replaced = rest.length !== contexts.contexts.length;
  const current = options.noUse && contexts.current !== null ? contexts.current : name;
  writeContexts(options.file, { current, contexts: [...rest, { name, url, token }] }, options);
  term.out(
    `context/${name} ${replaced ? 'updated' : 'created'}${current === name ? ' (in use)' : ''}`,
  );
  return 0;
}

export function useContext(term: Terminal, name: string, options: ContextFileOptions): number {
  const { file } = options;
  const contexts = readContexts(file);
  requireContext(contexts.contexts, name, file);
  writeContexts(file, { ...contexts, current: name }, options);
  term.out(`Switched to context "${name}"`);
  return 0;
}

export function deleteContext(term: Terminal, name: string, options: ContextFileOptions): number {
  const { file } = options;
  const contexts = readContexts(file);
  requireContext(contexts.contexts, name, file);
  const current = contexts.current === name ? null : contexts.current;
  const left = contexts.contexts.filter((c) => c.name !== name);
  writeContexts(file, { current, contexts: left }, options);
  term.out(
    `context/${name} deleted${current === null && contexts.current === name ? ' (no context in use now)' : ''}`,
  );
  return 0;
}

export function currentContext(term: Terminal, file: string): number {
  const { current } = readContexts(file);
  if (current === null)
    throw new NotFoundError('SLUICE_CONTEXT_NOT_FOUND', `No context is in use (${file})`, {
      hint: 'Add one: sluice auth create-context NAME --url URL --token-stdin',
    });
  term.out(current);
  return 0;
}

export function getContexts(
  term: Terminal,
  file: string,
  output: 'table' | 'wide' | 'yaml' | 'json',
): number {
  const { current, contexts } = readContexts(file);
  if (isExposed(file))
    term.err(
      term.paint('yellow', `warning: ${file} can be read by others; run: chmod 600 ${file}`),
    );
  // Tokens are never printed, in any format.
  const shown = contexts.map((c) => ({ name: c.name, url: c.url, current: c.name === current }));
  if (output === 'json' || output === 'yaml') {
    printDocument(term, { kind: 'List', items: shown }, output);
    return 0;
  }
  if (shown.length === 0) {
    term.err(
      `No contexts in ${file}; add one: sluice auth create-context NAME --url URL --token-stdin`,
    );
    return 0;
  }
  const rows = [
    ['CURRENT', 'NAME', 'URL'],
    ...shown.map((c) => [c.current ? '*' : '', c.name, c.url]),
  ];
  for (const line of fitTable(rows, 100)) term.out(line);
  return 0;
}

function requireContext(contexts: readonly { name: string }[], name: string, file: string): void {
  if (contexts.some((c) => c.name === name)) return;
  throw new NotFoundError('SLUICE_CONTEXT_NOT_FOUND', `No context "${name}" in ${file}`, {
    hint: `Known: ${contexts.map((c) => c.name).join(', ') || 'none'}; add it with sluice auth create-context ${name} --url URL --token-stdin`,
  });
}
