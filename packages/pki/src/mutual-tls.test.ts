import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer } from 'node:tls';
import type { ConnectionOptions, Server, TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { issueClientCertificate } from './issue-certificate.js';
import { createTestPki } from './pki.test-support.js';

// A real TLS handshake on loopback, configured the way dockerd --tlsverify is: the server
// presents its certificate and requires a client certificate signed by the same CA.
const main = await createTestPki('main');
const other = await createTestPki('other');
let server: Server;
let port: number;

/** What each side saw: the client's reply or error code, the server's verdict. */
interface Outcome {
  client: string;
  server: string;
}

before(async () => {
  server = createServer({
    key: main.server.keyPem,
    cert: main.server.certPem,
    ca: [main.ca.certPem],
    requestCert: true,
    rejectUnauthorized: true,
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    socket.end(`hello ${String(socket.getPeerCertificate().subject.CN)}`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  server.close();
  await once(server, 'close');
});

function serverVerdict(): Promise<string> {
  return new Promise((resolve) => {
    const accepted = (): void => finish('accepted');
    const refused = (err: NodeJS.ErrnoException): void => finish(err.code ?? err.message);
    function finish(verdict: string): void {
      server.off('secureConnection', accepted);
      server.off('tlsClientError', refused);
      resolve(verdict);
    }
    server.on('secureConnection', accepted);
    server.on('tlsClientError', refused);
  });
}

function clientOutcome(options: ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    let reply = '';
    const socket = connect({ host: '127.0.0.1', port, ...options });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on('close', () => resolve(reply === '' ? 'closed without reply' : reply));
  });
}

async function exchange(options: ConnectionOptions): Promise<Outcome> {
  const [server, client] = await Promise.all([serverVerdict(), clientOutcome(options)]);
  return { client, server };
}

const withClientCert = (pair: { certPem: string; keyPem: string }): ConnectionOptions => ({
  cert: pair.certPem,
  key: pair.keyPem,
});

/**
 * Under TLS 1.3 the client finishes its half of the handshake before the server has checked
 * its certificate, so which side reports what (alert, reset, bare close) varies; what matters
 * is that the server never accepts and the client never gets a reply.
 */
function assertRefusedByServer(outcome: Outcome): void {
  assert.notEqual(outcome.server, 'accepted');
  assert.doesNotMatch(outcome.client, /^hello/);
}

test('a client with an issued certificate completes the handshake', async () => {
  const outcome = await exchange({ ca: [main.ca.certPem], ...withClientCert(main.client) });
  assert.deepEqual(outcome, { client: 'hello build-1', server: 'accepted' });
});

test('the server name is checked against the certificate (DNS name)', async () => {
  const outcome = await exchange({
    servername: 'localhost',
    ca: [main.ca.certPem],
    ...withClientCert(main.client),
  });
  assert.deepEqual(outcome, { client: 'hello build-1', server: 'accepted' });
});

test('a client without a certificate is refused', async () => {
  const outcome = await exchange({ ca: [main.ca.certPem] });
  assert.equal(outcome.server, 'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE');
  assert.equal(outcome.client, 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
});

test('a client certificate from another CA is refused', async () => {
  const outcome = await exchange({ ca: [main.ca.certPem], ...withClientCert(other.client) });
  assertRefusedByServer(outcome);
});

test('an expired client certificate is refused', async () => {
  const now = new Date(Date.now() - 3 * 24 * 60 * 60_000);
  const expired = await issueClientCertificate(main.ca, {
    commonName: 'old',
    validityDays: 1,
    now,
  });
  const outcome = await exchange({ ca: [main.ca.certPem], ...withClientCert(expired) });
  assertRefusedByServer(outcome);
});

test('a server certificate that does not chain to the known CA is refused by the client', async () => {
  const outcome = await exchange({ ca: [other.ca.certPem], ...withClientCert(other.client) });
  // node:tls sends the CA along with the leaf, so the client sees an untrusted root.
  assert.equal(outcome.client, 'SELF_SIGNED_CERT_IN_CHAIN');
  assert.notEqual(outcome.server, 'accepted');
});

test('a server name missing from the certificate is refused by the client', async () => {
  const outcome = await exchange({
    servername: 'evil.example.com',
    ca: [main.ca.certPem],
    ...withClientCert(main.client),
  });
  assert.equal(outcome.client, 'ERR_TLS_CERT_ALTNAME_INVALID');
});
