/**
 * Registers contract routes on Fastify: the request is authenticated and checked against the
 * route's scope (the role it needs: docs/access.md), params, query and body are parsed with the
 * route's zod schemas (every problem reported at once, with its path), a caller limited to some
 * projects is checked against the project the params name, and the handler's result is sent
 * with the route's status. Who called is noted for the audit log (`audit-hook.ts`).
 * @module
 */
import { InputError } from '@sluice/errors';
import { ROLES } from '@sluice/protocol';
import type { RouteDef } from '@sluice/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { noteCaller, noteRoute } from './audit-hook.js';
import { bearerToken, principalOf, requireProject, requireScope } from './auth.js';
import type { Principal, TokenLookup } from './auth.js';
import { projectTargetOf } from './project-targets.js';
import type { ProjectTarget } from './project-targets.js';
import type { SessionStore } from '../services/identity/session-store.js';
import {
  clearSessionCookie,
  requireCsrf,
  sessionCookieOf,
  sessionError,
} from './session-cookie.js';

export interface HandlerContext<D extends RouteDef> {
  params: z.output<D['params']>;
  query: z.output<D['query']>;
  body: z.output<D['body']>;
  principal: Principal;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * An answer already serialized to JSON and encoded to UTF-8: requests coalesced into one read
 * share one buffer instead of each serializing the same object and encoding the same string.
 */
export class JsonText {
  readonly bytes: Buffer;
  constructor(text: string) {
    this.bytes = Buffer.from(text, 'utf8');
  }
}

export type Handler<D extends RouteDef> = (
  ctx: HandlerContext<D>,
) => Promise<z.input<D['response']> | JsonText | undefined>;

/** What registering a route needs of the server to authenticate and authorize its requests. */
export interface Authenticate {
  /** A bearer token's principal, or why it is refused (never throws for a bad token). */
  lookup(token: string): Promise<TokenLookup>;
  /** The name of the project `target` belongs to in the account; undefined when none. */
  projectOf(accountId: string, target: ProjectTarget): Promise<string | undefined>;
  /**
   * The web UI's sessions: a request without a bearer token to a route that names a role may
   * be authenticated by the session cookie (CSRF-checked: `session-cookie.ts`). Absent: tokens only.
   */
  sessions?: { store: SessionStore; publicUrl: string | undefined };
}

/**
 * The caller of a request: its bearer token's principal or, without one, its session cookie's
 * on routes for users. A token or cookie that no longer works is a 401 saying why.
 */
async function callerOf(
  request: FastifyRequest,
  reply: FastifyReply,
  route: RouteDef,
  authenticate: Authenticate,
): Promise<Principal | undefined> {
  const token = bearerToken(request.headers.authorization);
  const sessions = authenticate.sessions;
  const forUsers = (ROLES as readonly string[]).includes(route.scope);
  const cookie =
    token === undefined && forUsers && sessions !== undefined
      ? sessionCookieOf(request)
      : undefined;
  if (cookie === undefined || sessions === undefined) {
    const lookup = token === undefined ? undefined : await authenticate.lookup(token);
    noteCaller(request, lookup);
    return principalOf(lookup);
  }
  const lookup = await sessions.store.lookup(cookie);
  if (!lookup.ok && lookup.reason === 'session') {
    clearSessionCookie(request, reply);
    throw sessionError(lookup);
  }
  noteCaller(request, lookup);
  const principal = principalOf(lookup);
  if (principal !== undefined)
    requireCsrf(request, principal, {
      sessions: sessions.store,
      value: cookie,
      publicUrl: sessions.publicUrl,
    });
  return principal;
}

function parsePart(schema: z.ZodType, value: unknown, where: string): unknown {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw new InputError(
    'SLUICE_REQUEST_INVALID',
    `Invalid request: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    { details: { problems } },
  );
}

/** Aborts when the client goes away, so a long-poll or a stream stops holding its slot. */
export function disconnectSignal(request: FastifyRequest): AbortSignal {
  const controller = new AbortController();
  request.raw.on('close', () => controller.abort());
  return controller.signal;
}

/** A user limited to some projects may act only on theirs (a target that is not there: 404 later). */
async function requireTargetProject(
  authenticate: Authenticate,
  principal: Principal | undefined,
  params: unknown,
): Promise<void> {
  if (principal?.kind !== 'user' || principal.projects === null) return;
  const target = projectTargetOf(params);
  if (target === undefined) return;
  const project = await authenticate.projectOf(principal.accountId, target);
  if (project !== undefined) requireProject(principal, project);
}

export function registerRoute<D extends RouteDef>(
  app: FastifyInstance,
  route: D,
  authenticate: Authenticate,
  handler: Handler<D>,
): void {
  app.route({
    method: route.method,
    url: route.path,
    bodyLimit: route.bodyLimit,
    handler: async (request, reply) => {
      noteRoute(request, route);
      const principal = await callerOf(request, reply, route, authenticate);
      requireScope(principal, route.scope);
      const ctx = {
        params: parsePart(route.params, request.params, 'params'),
        query: parsePart(route.query, request.query, 'query'),
        body:
          route.method === 'GET' || route.method === 'DELETE'
            ? {}
            : parsePart(route.body, request.body, 'body'),
        principal: principal,
        request,
        reply,
      } as HandlerContext<D>;
      await requireTargetProject(authenticate, principal, ctx.params);
      const result = await handler(ctx);
      if (route.raw || reply.sent) return reply;
      if (result instanceof JsonText)
        return reply
          .status(route.status)
          .type('application/json; charset=utf-8')
          .send(result.bytes);
      return reply.status(route.status).send(route.status === 204 ? undefined : result);
    },
  });
}
