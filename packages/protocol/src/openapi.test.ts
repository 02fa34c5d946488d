import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenApiDocument } from './openapi.js';
import { routes } from './routes.js';
import { fillPath } from './route.js';

test('every route appears in the OpenAPI document with its method and operation id', () => {
  const doc = buildOpenApiDocument({ version: '0.1.0' }) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  for (const [name, def] of Object.entries(routes)) {
    const path = def.path.replace(/:(\w+)/g, '{$1}');
    assert.equal(
      doc.paths[path]?.[def.method.toLowerCase()]?.operationId,
      name,
      `${def.method} ${def.path}`,
    );
  }
});

test('bodies and path parameters are described from the zod schemas', () => {
  const doc = buildOpenApiDocument({ version: '0.1.0' }) as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters: { name: string; in: string; required: boolean }[];
          requestBody?: { content: Record<string, { schema: { required?: string[] } }> };
        }
      >
    >;
  };
  const create = doc.paths['/api/v1/projects/{project}/pipelines']?.post;
  assert.deepEqual(
    create?.parameters.map((p) => [p.name, p.in, p.required]),
    [['project', 'path', true]],
  );
  // `yaml` or `specTemplate`: the server refuses neither and both (SLUICE_PIPELINE_DEFINITION_*).
  assert.deepEqual(create?.requestBody?.content['application/json']?.schema.required?.sort(), [
    'name',
  ]);
  const poll = doc.paths['/api/agent/v1/tasks']?.get;
  assert.deepEqual(
    poll?.parameters.map((p) => [p.name, p.in]),
    [
      ['wait', 'query'],
      ['max', 'query'],
    ],
  );
});

test('path parameters are escaped one segment at a time', () => {
  assert.equal(
    fillPath('/api/v1/runtime-environments/:name', { name: 'cluster/ns' }),
    '/api/v1/runtime-environments/cluster%2Fns',
  );
  assert.throws(() => fillPath('/api/v1/builds/:buildId', {}), /Missing path parameter "buildId"/);
});
