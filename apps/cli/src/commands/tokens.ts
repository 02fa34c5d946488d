/**
 * `sluice get tokens [--user NAME]`, `create token [NAME] [--scope read|run|admin] [--expires
 * 30d] [--user NAME]` and `delete token ID`: user API tokens (docs/access.md). A new token's
 * value is printed once, on stdout alone, so it can be piped; only its hash is kept.
 * @module
 */
import type { TokenInfo, TokenScope } from '@sluice/protocol';
import { parseDuration } from '../duration.js';
import type { Terminal } from '../ui/terminal.js';
import { formatAge } from '../ui/terminal.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

const TABLE = {
  header: ['ID', 'NAME', 'USER', 'SCOPE', 'PREFIX', 'LAST USED', 'EXPIRES', 'STATE'],
  row: (t: TokenInfo) => [
    t.id,
    t.name,
    t.user ?? '-',
    t.scope ?? '-',
    t.prefix,
    formatAge(t.lastUsedAt),
    t.expiresAt ?? 'never',
    state(t),
  ],
};

function state(token: TokenInfo, now = Date.now()): string {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= now) return 'expired';
  return 'active';
}

export async function getTokens(
  term: Terminal,
  options: ServerOptions & { output: OutputFormat; user?: string; columns: number },
): Promise<number> {
  const { items } = await serverClient(options).call('listTokens', {
    query: { user: options.user },
  });
  printResources(term, items, options.output, TABLE, options);
  return 0;
}

export interface CreateTokenFlags {
  scope?: TokenScope;
  expires?: string;
  user?: string;
}

export async function createToken(
  term: Terminal,
  name: string,
  options: ServerOptions & CreateTokenFlags,
): Promise<number> {
  const expiresInSeconds =
    options.expires === undefined ? undefined : parseDuration(options.expires, '--expires');
  const { token, info } = await serverClient(options).call('createToken', {
    body: { name, scope: options.scope, expiresInSeconds, user: options.user },
  });
  term.err(
    `token/${info.id} created for ${info.user ?? '?'} (scope ${info.scope ?? '?'}, expires ${info.expiresAt ?? 'never'}); its value (shown once) follows`,
  );
  term.out(token);
  return 0;
}

export async function deleteToken(
  term: Terminal,
  id: string,
  options: ServerOptions,
): Promise<number> {
  await serverClient(options).call('revokeToken', { params: { tokenId: id } });
  term.out(`token/${id} revoked`);
  return 0;
}
