/**
 * The audit log's HTTP half (docs/access.md). Recorded, before the answer is sent (so a client
 * that reads the log after its change finds it):
 * - every request to a route that changes something (`isAudited`: a route of `/api/v1` that
 *   needs a member or an admin and is not a GET), whether it succeeded, was refused or failed;
 * - every use of a token the server knows but refuses (revoked, expired, its user removed), on
 *   any route, as `tokenRejected`.
 * A request with no token or an unknown one belongs to no account and is not recorded. What is
 * kept of a body is `AUDITED_FIELDS` (names, roles, scopes), never a value, a secret or a token.
 * @module
 */
import { routes } from '@sluice/protocol';
import type { RouteDef } from '@sluice/protocol';
import type { Logger } from '@sluice/log';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditDetails, AuditEntry, AuditLog } from '../services/identity/audit-log.js';
import type { TokenLookup } from './auth.js';

/** The body fields an audit event keeps: what was named, never what was set. */
export const AUDITED_FIELDS = ['name', 'user', 'role', 'scope', 'projects', 'step'] as const;

const ROUTE_NAMES = new Map<RouteDef, string>(
  Object.entries(routes).map(([name, def]) => [def as RouteDef, name]),
);

interface Note {
  route: RouteDef;
  lookup?: TokenLookup;
  details: AuditDetails;
}

const notes = new WeakMap<FastifyRequest, Note>();

/** Whether requests to `route` are recorded: it changes something a viewer may not. */
export function isAudited(route: RouteDef): boolean {
  return route.method !== 'GET' && (route.scope === 'member' || route.scope === 'admin');
}

export function noteRoute(request: FastifyRequest, route: RouteDef): void {
  notes.set(request, { route, details: {} });
}

export function noteCaller(request: FastifyRequest, lookup: TokenLookup | undefined): void {
  const note = notes.get(request);
  if (note !== undefined) note.lookup = lookup;
}

/** Adds what a handler alone knows (the id of the token it made) to the request's event. */
export function noteAuditDetail(request: FastifyRequest, key: string, value: string): void {
  const note = notes.get(request);
  if (note !== undefined) note.details[key] = value;
}

export function registerAuditHook(app: FastifyInstance, audit: AuditLog, log: Logger): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const note = notes.get(request);
    const entry = note === undefined ? undefined : auditEntry(note, request, reply.statusCode);
    if (entry === undefined) return payload;
    try {
      await audit.record(entry);
    } catch (err) {
      // The change is made; its answer stands, and someone must look at the missing record.
      log.error('audit event not recorded', {
        reqId: request.id,
        action: entry.action,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    return payload;
  });
}

function auditEntry(note: Note, request: FastifyRequest, status: number): AuditEntry | undefined {
  const { lookup, route } = note;
  const path = request.url.split('?')[0] ?? request.url;
  const action = ROUTE_NAMES.get(route) ?? `${route.method} ${route.path}`;
  if (lookup !== undefined && !lookup.ok) {
    if (lookup.reason === 'unknown') return undefined;
    const { owner } = lookup;
    return {
      accountId: owner.accountId,
      actor: { userId: owner.userId, userName: owner.userName, tokenId: owner.tokenId },
      action: 'tokenRejected',
      target: `${request.method} ${path}`,
      source: request.ip,
      outcome: 'denied',
      status,
      details: { reason: lookup.reason, route: action },
    };
  }
  if (lookup === undefined || !isAudited(route)) return undefined;
  const { principal } = lookup;
  return {
    accountId: principal.accountId,
    actor: {
      userId: principal.userId ?? null,
      userName: principal.userName ?? null,
      tokenId: principal.tokenId,
    },
    action,
    target: path,
    source: request.ip,
    outcome: status < 400 ? 'succeeded' : status === 401 || status === 403 ? 'denied' : 'failed',
    status,
    details: { ...bodyDetails(request.body), ...note.details },
  };
}

function bodyDetails(body: unknown): AuditDetails {
  if (typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return {};
  const details: AuditDetails = {};
  for (const field of AUDITED_FIELDS) {
    const value: unknown = (body as Record<string, unknown>)[field];
    if (typeof value === 'string') details[field] = value.slice(0, 200);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      details[field] = value.slice(0, 100).map((v: string) => v.slice(0, 200));
    else if (value === null) details[field] = null;
  }
  return details;
}
