/**
 * The OpenAPI 3.1 document of every route, generated from the zod schemas of the route table.
 * @module
 */
import { z } from 'zod';
import { routes } from './routes.js';
import type { RouteDef } from './route.js';
import { ErrorBody } from './schemas/common.js';

type Json = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any' });
}

function parameters(def: RouteDef): Json[] {
  const out: Json[] = [];
  for (const [where, schema] of [
    ['path', def.params],
    ['query', def.query],
  ] as const) {
    const json = schemaOf(schema, 'input') as {
      properties?: Record<string, Json>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        schema: property,
      });
    }
  }
  return out;
}

function operation(name: string, def: RouteDef): Json {
  const errorResponse = {
    description: 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  const success = def.raw
    ? { description: 'Stream or text' }
    : def.status === 204
      ? { description: 'No content' }
      : {
          description: 'OK',
          content: { 'application/json': { schema: schemaOf(def.response, 'output') } },
        };
  const op: Json = {
    operationId: name,
    summary: def.summary,
    tags: [def.tag],
    parameters: parameters(def),
    responses: { [String(def.status)]: success, '4XX': errorResponse, '5XX': errorResponse },
  };
  if (def.method !== 'GET' && def.method !== 'DELETE') {
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: schemaOf(def.body, 'input') } },
    };
  }
  if (def.scope !== 'public') op.security = [{ bearer: [] }];
  // Who may call it: a role of /api/v1 (docs/access.md), or the agent or engine token kind.
  op['x-sluice-scope'] = def.scope;
  return op;
}

export function buildOpenApiDocument(info: { version: string }): Json {
  const paths: Record<string, Json> = {};
  for (const [name, def] of Object.entries(routes) as [string, RouteDef][]) {
    const path = def.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [def.method.toLowerCase()]: operation(name, def) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sluice API',
      version: info.version,
      description:
        'User API (/api/v1), agent API (/api/agent/v1) and engine API (/api/engine/v1); probes /healthz and /readyz. Prometheus metrics are not part of this API: the server serves /metrics on a listener of its own (SLUICE_METRICS_PORT, no token), see docs/metrics.md',
    },
    paths,
    components: {
      schemas: { Error: schemaOf(ErrorBody, 'output') },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token: user, agent or engine scoped',
        },
      },
    },
  };
}
