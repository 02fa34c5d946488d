/**
 * `KubeClient.errorCounts()` over real HTTP: an API server stand-in on a loopback port answers
 * with Kubernetes Status bodies (a real cluster runs in the kube tier; this needs none). Failed
 * requests are counted by kind; AlreadyExists on create and NotFound on delete are not failures.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeClient } from './kube-client.js';

const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'engine-b1', namespace: 'builds' },
  spec: { containers: [{ name: 'engine', image: 'sluice/engine:1' }] },
};

/** The status and Kubernetes reason the stand-in answers each method with. */
const ANSWERS: Record<string, [number, string]> = {
  POST: [409, 'AlreadyExists'],
  DELETE: [404, 'NotFound'],
  GET: [403, 'Forbidden'],
};

test('failed requests are counted by kind; what counts as done is not', async () => {
  const server = createServer((req, res) => {
    const [code, reason] = ANSWERS[req.method ?? ''] ?? [500, 'InternalError'];
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', status: 'Failure', reason, message: reason, code }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const kube = KubeClient.create({
      source: { type: 'token', host: `http://127.0.0.1:${port}`, token: 't' },
      env: {},
    });
    assert.deepEqual(kube.errorCounts(), {});
    assert.equal(await kube.create(POD), 'exists');
    assert.equal(
      await kube.delete({ kind: 'Pod', namespace: 'builds', name: 'engine-b1' }),
      'absent',
    );
    assert.deepEqual(kube.errorCounts(), {}, 'AlreadyExists on create and NotFound on delete');
    for (let i = 0; i < 2; i++)
      await assert.rejects(kube.list({ kind: 'Pod', namespace: 'builds' }), /403/);
    assert.deepEqual(kube.errorCounts(), { forbidden: 2 });
    kube.close();

    const gone = KubeClient.create({
      source: { type: 'token', host: `http://127.0.0.1:${port}`, token: 't' },
      env: {},
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await assert.rejects(gone.list({ kind: 'Pod', namespace: 'builds' }));
    assert.deepEqual(gone.errorCounts(), { unavailable: 1 });
    gone.close();
  } finally {
    server.close();
  }
});
