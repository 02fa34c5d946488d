import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { silentLogger } from '@sluice/log';
import { BODY_LIMITS, route } from '@sluice/protocol';
import { createHttpApp } from './http-app.js';
import { registerRoute } from './register-routes.js';
import { stalledPost } from './stalled-request.test-support.js';
import type { StalledAnswer } from './stalled-request.test-support.js';

const app = createHttpApp(silentLogger, { bodyTimeoutMs: 300 });
const Text = z.object({ text: z.string() });
const Length = z.object({ length: z.number() });
const small = route({
  method: 'POST',
  path: '/api/test/small',
  scope: 'public',
  tag: 'test',
  summary: 'A route of 1 KiB',
  body: Text,
  response: Length,
  bodyLimit: 1024,
});
const plain = { ...small, path: '/api/test/plain', bodyLimit: BODY_LIMITS.default };
const authenticate = {
  lookup: () => Promise.reject(new Error('no tokens here')),
  projectOf: () => Promise.resolve(undefined),
};
for (const def of [small, plain])
  registerRoute(app, def, authenticate, ({ body }) =>
    Promise.resolve({ length: body.text.length }),
  );
let port = 0;

before(async () => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});
after(() => app.close());

const post = (path: string, announced: number, sent: string) =>
  stalledPost(`http://127.0.0.1:${port}${path}`, { announced, sent });

test('a body over its route limit is refused with 413 naming the limit, before it is sent', async () => {
  // 1 MiB announced, nothing sent: the answer comes from the announcement alone.
  const refused = await post('/api/test/small', 1024 * 1024, '');
  assert.equal(refused.status, 413);
  assert.equal(refused.body.error?.code, 'SLUICE_REQUEST_TOO_LARGE');
  assert.equal(
    refused.body.error?.message,
    'The request body is larger than 1,024 bytes (1 KiB), the most POST /api/test/small accepts',
  );
  assert.deepEqual(refused.body.error?.details, { limit: 1024 });
});

test("a route that names no limit takes the default, and a body within its route's limit passes", async () => {
  const text = 'x'.repeat(70 * 1024);
  const response = await fetch(`http://127.0.0.1:${port}/api/test/plain`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  const body = (await response.json()) as StalledAnswer['body'];
  assert.equal(response.status, 413);
  assert.match(body.error?.message ?? '', /larger than 65,536 bytes \(64 KiB\), the most POST/);
  const fits = await fetch(`http://127.0.0.1:${port}/api/test/plain`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: text.slice(0, 60 * 1024) }),
  });
  assert.deepEqual(await fits.json(), { length: 60 * 1024 });
});

test('a body that stops coming is answered 408 with what came, and the connection closed', async () => {
  const answer = await post('/api/test/small', 1000, '{"text":"');
  assert.equal(answer.status, 408);
  assert.equal(answer.body.error?.code, 'SLUICE_REQUEST_BODY_TIMEOUT');
  assert.equal(
    answer.body.error?.message,
    'The request body did not arrive within 0.3 s: 9 bytes of the 1,000 bytes announced came',
  );
  assert.deepEqual(answer.body.error?.details, { receivedBytes: 9, timeoutMs: 300 });
});
