import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { startTlsDockerd } from '@sluice/testkit';
import type { TlsDockerd } from '@sluice/testkit';
import { createTestPki } from './pki.test-support.js';
import type { TestPki } from './pki.test-support.js';

// A real dockerd (Debian docker.io) behind --tlsverify with certificates from this package, the
// way a build's dind runs. `startTlsDockerd` gives it its own data, exec root, pidfile, config
// and bridge, on a loopback port: it does not touch the machine's running engine.

let pki: TestPki;
let other: TestPki;
let dockerd: TlsDockerd | undefined;

type Reply = { status: number; body: string } | { error: string };

/** GET /version over TLS, trusting only `caPem`; `client` adds a client certificate. */
function getVersion(caPem: string, client?: { certPem: string; keyPem: string }): Promise<Reply> {
  assert.ok(dockerd !== undefined, 'the TLS dockerd did not start');
  const { port } = dockerd;
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/version',
        ca: caPem,
        cert: client?.certPem,
        key: client?.keyPem,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (err: NodeJS.ErrnoException) =>
          resolve({ error: err.code ?? err.message }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}

before(async () => {
  [pki, other] = await Promise.all([createTestPki('dind'), createTestPki('other')]);
  dockerd = await startTlsDockerd({
    caPem: pki.ca.certPem,
    serverCertPem: pki.server.certPem,
    serverKeyPem: pki.server.keyPem,
  });
});

after(async () => {
  await dockerd?.stop();
});

test('GET /version succeeds over mutual TLS with an issued client certificate', async () => {
  const reply = await getVersion(pki.ca.certPem, pki.client);
  assert.ok('status' in reply, `request failed: ${'error' in reply ? reply.error : ''}`);
  assert.equal(reply.status, 200);
  const version = JSON.parse(reply.body) as { Version?: string; ApiVersion?: string };
  assert.match(version.ApiVersion ?? '', /^1\.\d+$/);
});

test('dockerd refuses a client without a certificate', async () => {
  const reply = await getVersion(pki.ca.certPem);
  assert.ok('error' in reply, `expected a refused handshake, got HTTP ${JSON.stringify(reply)}`);
});

test('dockerd refuses a client certificate from another CA', async () => {
  const reply = await getVersion(pki.ca.certPem, other.client);
  assert.ok('error' in reply, `expected a refused handshake, got HTTP ${JSON.stringify(reply)}`);
});

test('a client pinning another CA refuses the dind server certificate', async () => {
  const reply = await getVersion(other.ca.certPem, other.client);
  assert.deepEqual(reply, { error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
});
