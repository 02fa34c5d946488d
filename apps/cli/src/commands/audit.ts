/**
 * `sluice get audit [--since 1h] [--user NAME] [--limit N]`: who did what, newest first, from
 * the account's audit log (administrators; docs/access.md).
 * @module
 */
import type { AuditEvent } from '@sluice/protocol';
import { parseDuration } from '../duration.js';
import type { Terminal } from '../ui/terminal.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

const TABLE = {
  header: ['TIME', 'USER', 'ACTION', 'TARGET', 'OUTCOME', 'SOURCE'],
  row: (e: AuditEvent) => [
    e.at,
    e.actor.user ?? '(server)',
    e.action,
    e.target,
    e.status === null ? e.outcome : `${e.outcome} ${e.status}`,
    e.source ?? '-',
  ],
  wide: {
    header: ['TOKEN', 'DETAILS'],
    row: (e: AuditEvent) => [e.actor.tokenId ?? '-', detailsText(e.details)],
  },
};

function detailsText(details: AuditEvent['details']): string {
  return Object.entries(details)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(',') : (value ?? 'null')}`)
    .join(' ');
}

export interface GetAuditOptions extends ServerOptions {
  output: OutputFormat;
  since?: string;
  user?: string;
  action?: string;
  limit: number;
  columns: number;
}

export async function getAudit(term: Terminal, options: GetAuditOptions): Promise<number> {
  const since =
    options.since === undefined
      ? undefined
      : new Date(Date.now() - parseDuration(options.since, '--since') * 1000).toISOString();
  const { items } = await serverClient(options).call('listAudit', {
    query: { since, user: options.user, action: options.action, limit: options.limit },
  });
  printResources(term, items, options.output, TABLE, options);
  return 0;
}
