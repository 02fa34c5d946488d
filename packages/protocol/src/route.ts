/**
 * A route of the API, described once: method, path, who may call it, and the zod schemas of its
 * params, query, body and response. The server registers routes from these; the typed client
 * calls them; the OpenAPI document is generated from them.
 * @module
 */
import { z } from 'zod';
import type { Role } from './access.js';
import { BODY_LIMITS } from './schemas/limits.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call: no token; a user token whose user (narrowed by the token's scope) has at least
 * this role (`viewer`, `member`, `admin`: docs/access.md); an agent token; or an engine (one
 * build) token. The one rule of the route: the server enforces it and tests iterate it.
 */
export type RouteScope = 'public' | Role | 'agent' | 'engine';

export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** Fastify style: `/api/v1/projects/:project`. */
  path: string;
  scope: RouteScope;
  summary: string;
  tag: string;
  params: P;
  query: Q;
  body: B;
  response: R;
  /** Success status: 200 by default. */
  status: number;
  /** The response is a stream (SSE, text): the client returns the raw Response. */
  raw?: boolean;
  /** The largest request body accepted, in bytes (`BODY_LIMITS`): 413 beyond it. */
  bodyLimit: number;
}

const none = z.object({});

export function route<
  P extends z.ZodType = typeof none,
  Q extends z.ZodType = typeof none,
  B extends z.ZodType = typeof none,
  R extends z.ZodType = z.ZodNull,
>(def: {
  method: HttpMethod;
  path: string;
  scope: RouteScope;
  summary: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  response?: R;
  status?: number;
  raw?: boolean;
  bodyLimit?: number;
}): RouteDef<P, Q, B, R> {
  return {
    ...def,
    params: (def.params ?? none) as P,
    query: (def.query ?? none) as Q,
    body: (def.body ?? none) as B,
    response: (def.response ?? z.null()) as R,
    status: def.status ?? 200,
    bodyLimit: def.bodyLimit ?? BODY_LIMITS.default,
  };
}

/** Fills `:name` segments of a path, each escaped on its own (names may hold `/`). */
export function fillPath(path: string, params: Record<string, unknown>): string {
  return path.replace(/:(\w+)/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new Error(`Missing path parameter "${key}" for ${path}`);
    return encodeURIComponent(paramText(value));
  });
}

/** A path or query value as text: scalars as themselves, anything else as JSON. */
export function paramText(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value);
}
