import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectionFailure, messageOf } from './connection-errors.js';

// The TLS 1.2 cases (dockerd 20.10 here) run for real in docker-tls.int.test.ts; these are the
// errors Node raises against newer daemons (TLS 1.3 alerts) and the rest of the classification.

const host = 'tcp://dind:1300';
const withClient = { host, tls: { ca: 'CA', cert: 'CERT', key: 'KEY' } };

function nodeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

test('TLS 1.3 alerts about the client certificate are a refused client', () => {
  const missing = connectionFailure(
    { host, tls: { ca: 'CA' } },
    'ping',
    nodeError('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'tlsv13 alert certificate required'),
  );
  assert.equal(missing?.code, 'SLUICE_DOCKER_TLS_REJECTED');
  assert.match(missing?.message ?? '', /at tcp:\/\/dind:1300 .*no client certificate was sent/);
  const unknown = connectionFailure(
    withClient,
    'ping',
    nodeError('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'tlsv1 alert unknown ca'),
  );
  assert.equal(unknown?.code, 'SLUICE_DOCKER_TLS_REJECTED');
  assert.match(unknown?.message ?? '', /\(cert\.pem\) was not accepted/);
});

test('an expired server certificate is untrusted, and the message says why', () => {
  const err = nodeError('CERT_HAS_EXPIRED', 'certificate has expired');
  const failure = connectionFailure(withClient, 'ping', err);
  assert.equal(failure?.code, 'SLUICE_DOCKER_TLS_UNTRUSTED');
  assert.equal(failure?.category, 'authentication');
  assert.match(failure?.message ?? '', /outside its validity period.*certificate has expired$/);
  assert.equal(failure?.cause, err);
});

test('socket errors are an unreachable engine; answers from the engine are not connection errors', () => {
  const refused = connectionFailure(withClient, 'ping', nodeError('ECONNREFUSED', 'refused'));
  assert.equal(refused?.code, 'SLUICE_DOCKER_UNAVAILABLE');
  assert.equal(refused?.category, 'unavailable');
  const answer = Object.assign(new Error('(HTTP code 404) no such container - gone'), {
    statusCode: 404,
  });
  assert.equal(connectionFailure(withClient, 'ping', answer), undefined);
});

test('messageOf keeps OpenSSL reason and drops its prefix and source location', () => {
  const raw =
    '80CC2208B47F0000:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 42\n';
  assert.equal(messageOf(new Error(raw)), 'sslv3 alert bad certificate');
  assert.equal(messageOf(new Error('(HTTP code 409) conflict - name in use ')), 'name in use');
});
