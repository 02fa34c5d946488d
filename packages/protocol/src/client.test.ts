import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isSluiceError } from '@sluice/errors';
import { createClient } from './client.js';

const seen: { method: string; url: string; auth: string | undefined; body: string }[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      auth: req.headers.authorization,
      body,
    });
    if (req.url === '/api/v1/projects/web/pipelines') {
      res.writeHead(413, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { code: 'SLUICE_PIPELINE_TOO_LARGE', message: 'The pipeline YAML is too big' },
        }),
      );
    } else if (req.url?.startsWith('/api/v1/projects/slow')) {
      res.writeHead(408, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: {
            code: 'SLUICE_REQUEST_BODY_TIMEOUT',
            message: 'The body did not arrive in time',
          },
        }),
      );
    } else if (req.url?.startsWith('/api/v1/projects/busy')) {
      res.writeHead(429, { 'retry-after': '5' }).end('Too Many Requests');
    } else if (req.url?.startsWith('/api/v1/projects/missing')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { code: 'SLUICE_PROJECT_NOT_FOUND', message: 'Project missing does not exist' },
        }),
      );
    } else if (req.url === '/api/v1/projects') {
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: 'p1', name: 'web', createdAt: 'now' }));
    } else res.writeHead(204).end();
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => server.close());

test('calls send the bearer token, the JSON body and the path', async () => {
  const client = createClient({ baseUrl, token: 'slc_user_abc' });
  const project = await client.call('createProject', { body: { name: 'web' } });
  assert.equal(project.name, 'web');
  const last = seen.at(-1);
  assert.equal(last?.method, 'POST');
  assert.equal(last?.auth, 'Bearer slc_user_abc');
  assert.deepEqual(JSON.parse(last?.body ?? ''), { name: 'web' });
});

test('error responses become Sluice errors with the server code', async () => {
  const client = createClient({ baseUrl, token: 't' });
  await assert.rejects(
    client.call('getProject', { params: { project: 'missing' } }),
    (err: unknown) => {
      assert.ok(isSluiceError(err));
      assert.equal(err.category, 'not-found');
      assert.equal(err.code, 'SLUICE_PROJECT_NOT_FOUND');
      assert.equal(err.message, 'Project missing does not exist');
      return true;
    },
  );
});

test('413 (a body over a limit) is an input error: the caller sent too much', async () => {
  const client = createClient({ baseUrl, token: 't' });
  await assert.rejects(
    client.call('createPipeline', { params: { project: 'web' }, body: { name: 'p', yaml: 'x' } }),
    (err: unknown) => isSluiceError(err) && err.category === 'input' && /too big/.test(err.message),
  );
});

test('408 (body too slow) and 429 (too many at once) are unavailable: another try may pass', async () => {
  const client = createClient({ baseUrl, token: 't' });
  for (const project of ['slow', 'busy']) {
    await assert.rejects(client.call('getProject', { params: { project } }), (err: unknown) => {
      assert.ok(isSluiceError(err));
      assert.equal(err.category, 'unavailable', project);
      return true;
    });
  }
  await assert.rejects(
    client.call('getProject', { params: { project: 'busy' } }),
    (err: unknown) => isSluiceError(err) && err.code === 'SLUICE_HTTP_429',
  );
});

test('204 responses return null and query values are encoded', async () => {
  const client = createClient({ baseUrl, token: 't' });
  assert.equal(await client.call('revokeToken', { params: { tokenId: 'tok 1' } }), null);
  assert.equal(seen.at(-1)?.url, '/api/v1/tokens/tok%201');
  await client.call('pollTasks', { query: { wait: 0, max: 5 } }).catch(() => undefined);
  assert.equal(seen.at(-1)?.url, '/api/agent/v1/tasks?wait=0&max=5');
});

test('an unreachable server is an UnavailableError naming the URL', async () => {
  const client = createClient({ baseUrl: 'http://127.0.0.1:1', token: 't' });
  await assert.rejects(client.call('me'), /Cannot reach the Sluice server at http:\/\/127.0.0.1:1/);
});
