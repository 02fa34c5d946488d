import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { handoverCertificate } from './warm-pool-handover.js';

/** Whether a client trusting `ca` completes a handshake with `server` expecting `name`. */
async function handshake(
  server: { certPem: string; keyPem: string },
  client: { ca: string; name: string },
): Promise<string> {
  const listener = createServer({ cert: server.certPem, key: server.keyPem }, (socket) =>
    socket.end(),
  );
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, ca: client.ca, servername: client.name });
      socket.once('secureConnect', () => {
        socket.end();
        resolve('ok');
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
  } finally {
    listener.close();
  }
}

test("a pool pod's handover certificate is trusted through its own CA, for its own name only", async () => {
  const pod = await handoverCertificate('warm-pool-0a1b2c3d4e');
  const other = await handoverCertificate('warm-pool-ffffffffff');
  assert.equal(await handshake(pod, { ca: pod.caPem, name: 'warm-pool-0a1b2c3d4e' }), 'ok');
  // Another pod's CA does not vouch for it, and its certificate names no other pod.
  assert.notEqual(await handshake(pod, { ca: other.caPem, name: 'warm-pool-0a1b2c3d4e' }), 'ok');
  assert.equal(
    await handshake(pod, { ca: pod.caPem, name: 'warm-pool-ffffffffff' }),
    'ERR_TLS_CERT_ALTNAME_INVALID',
  );
  // Each pod's key is its own.
  assert.notEqual(pod.keyPem, other.keyPem);
  assert.match(pod.keyPem, /BEGIN PRIVATE KEY/);
});
