import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { createCertificateAuthority } from './certificate-authority.js';
import { describeCertificate } from './describe-certificate.js';
import { issueClientCertificate, issueServerCertificate } from './issue-certificate.js';
import { createTestPki } from './pki.test-support.js';

const DAY_MS = 24 * 60 * 60_000;
const main = await createTestPki('main');
const other = await createTestPki('other');
const caCert = new X509Certificate(main.ca.certPem);

test('the CA is self-signed, a CA, and limited to signing leaves', () => {
  assert.equal(caCert.ca, true);
  assert.equal(caCert.verify(caCert.publicKey), true);
  assert.equal(caCert.checkIssued(caCert), true);
  assert.equal(caCert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  const description = describeCertificate(main.ca.certPem);
  assert.equal(description.subject, 'O=Sluice tests, CN=main CA');
  assert.equal(description.isCertificateAuthority, true);
});

test('the server certificate chains to its CA and carries its names and serverAuth', () => {
  const cert = new X509Certificate(main.server.certPem);
  assert.equal(cert.verify(caCert.publicKey), true);
  assert.equal(cert.checkIssued(caCert), true);
  assert.equal(cert.verify(new X509Certificate(other.ca.certPem).publicKey), false);
  assert.equal(cert.ca, false);
  assert.equal(cert.checkHost('dind'), 'dind');
  // checkHost answers with the name that matched, here the wildcard.
  assert.equal(cert.checkHost('engine-1.dind.sluice.svc'), '*.dind.sluice.svc');
  assert.equal(cert.checkHost('example.com'), undefined);
  assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(cert.checkIP('::1'), '::1');
  assert.equal(cert.checkIP('10.0.0.1'), undefined);
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.equal(cert.checkPrivateKey(createPrivateKey(main.server.keyPem)), true);
});

test('the client certificate chains to its CA and carries clientAuth only', () => {
  const cert = new X509Certificate(main.client.certPem);
  assert.equal(cert.verify(caCert.publicKey), true);
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
  assert.equal(cert.subjectAltName, undefined);
  assert.equal(cert.subject, 'O=sluice-engine\nCN=build-1');
});

test('describeCertificate reports names, validity, usages and fingerprint', () => {
  const before = Date.now();
  const d = describeCertificate(main.server.certPem);
  assert.equal(d.commonName, 'dind');
  assert.equal(d.issuer, 'O=Sluice tests, CN=main CA');
  assert.deepEqual(d.dnsNames, ['dind', 'localhost', '*.dind.sluice.svc']);
  assert.deepEqual(d.ipAddresses, ['127.0.0.1', '::1']);
  assert.deepEqual(d.extendedKeyUsages, ['serverAuth']);
  assert.equal(d.isCertificateAuthority, false);
  assert.equal(d.fingerprint256, new X509Certificate(main.server.certPem).fingerprint256);
  assert.match(d.serialNumber, /^[0-9A-F]{32}$/);
  // notBefore is backdated a few minutes for clock skew; notAfter is 7 days out.
  assert.ok(d.notBefore.getTime() <= before && d.notBefore.getTime() > before - 10 * 60_000);
  assert.ok(Math.abs(d.notAfter.getTime() - (before + 7 * DAY_MS)) < 60_000);
});

test('serial numbers are unique', () => {
  const serials = [main.ca, main.server, main.client, other.server].map(
    (c) => describeCertificate(c.certPem).serialNumber,
  );
  assert.equal(new Set(serials).size, serials.length);
});

test('a certificate never outlives its CA', async () => {
  const ca = await createCertificateAuthority({ commonName: 'short CA', validityDays: 2 });
  const leaf = await issueClientCertificate(ca, { commonName: 'c', validityDays: 365 });
  assert.deepEqual(
    describeCertificate(leaf.certPem).notAfter,
    describeCertificate(ca.certPem).notAfter,
  );
});

test('`now` sets the validity window, so an old certificate is expired', async () => {
  const now = new Date(Date.now() - 10 * DAY_MS);
  const ca = await createCertificateAuthority({ commonName: 'old CA', validityDays: 30, now });
  const leaf = await issueClientCertificate(ca, { commonName: 'c', validityDays: 1, now });
  const d = describeCertificate(leaf.certPem);
  assert.equal(d.notAfter.getTime(), Math.floor((now.getTime() + DAY_MS) / 1000) * 1000);
  assert.ok(d.notAfter.getTime() < Date.now());
});

test('invalid options are reported all at once', async () => {
  await assert.rejects(
    issueServerCertificate(main.ca, {
      commonName: '',
      dnsNames: ['bad name'],
      ipAddresses: ['300.1.1.1'],
      validityDays: 0,
    }),
    (err: Error & { code?: string; details?: { issues?: string[] } }) => {
      assert.equal(err.code, 'SLUICE_PKI_OPTIONS_INVALID');
      assert.deepEqual(err.details?.issues, [
        'commonName is empty',
        'validityDays 0 is not a whole number of days of at least 1',
        '"bad name" is not a DNS name',
        '"300.1.1.1" is not an IP address',
      ]);
      return true;
    },
  );
});

test('a server certificate needs a subject alternative name', async () => {
  await assert.rejects(issueServerCertificate(main.ca, { commonName: 'dind', validityDays: 1 }), {
    code: 'SLUICE_PKI_OPTIONS_INVALID',
    message: /at least one of dnsNames and ipAddresses/,
  });
});

test('a leaf certificate cannot act as a CA', async () => {
  await assert.rejects(issueClientCertificate(main.server, { commonName: 'c', validityDays: 1 }), {
    code: 'SLUICE_PKI_CA_INVALID',
    message: 'Certificate "CN=dind" is not a CA',
  });
});

test("a CA with another CA's key is refused", async () => {
  const mixed = { certPem: main.ca.certPem, keyPem: other.ca.keyPem };
  await assert.rejects(issueClientCertificate(mixed, { commonName: 'c', validityDays: 1 }), {
    code: 'SLUICE_PKI_CA_INVALID',
    message: 'CA private key does not belong to the CA certificate',
  });
});

test('a CA key that is not ECDSA P-256 is refused by name', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await assert.rejects(
    issueClientCertificate(
      { certPem: main.ca.certPem, keyPem },
      { commonName: 'c', validityDays: 1 },
    ),
    {
      code: 'SLUICE_PKI_CA_INVALID',
      message: 'CA private key is rsa, expected an ECDSA P-256 key',
    },
  );
});

test('an expired CA is refused', async () => {
  const now = new Date(Date.now() - 10 * DAY_MS);
  const ca = await createCertificateAuthority({ commonName: 'old', validityDays: 1, now });
  await assert.rejects(issueClientCertificate(ca, { commonName: 'c', validityDays: 1 }), {
    code: 'SLUICE_PKI_CA_INVALID',
    message: /^CA certificate expired at /,
  });
});

test('unreadable PEM is an InputError', async () => {
  await assert.rejects(
    issueClientCertificate(
      { certPem: 'nope', keyPem: 'nope' },
      { commonName: 'c', validityDays: 1 },
    ),
    { code: 'SLUICE_PKI_CA_INVALID', name: 'InputError' },
  );
  await assert.rejects(
    issueClientCertificate(
      { certPem: main.ca.certPem, keyPem: 'nope' },
      { commonName: 'c', validityDays: 1 },
    ),
    { code: 'SLUICE_PKI_CA_INVALID', message: /not a readable PEM private key/ },
  );
  assert.throws(() => describeCertificate('-----BEGIN CERTIFICATE-----\nAA==\n'), {
    code: 'SLUICE_PKI_CERTIFICATE_INVALID',
  });
});
