import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { makeTempDir } from '../temp-dir.js';
import { createCa, issueCert } from './openssl-certs.js';

test('a CA issues a server certificate with the SANs and usage asked for', async () => {
  const temp = await makeTempDir();
  try {
    const ca = await createCa(temp.path, 'ca', 'test CA');
    const leaf = await issueCert(temp.path, 'server', {
      ca,
      commonName: 'kube-apiserver',
      organization: 'system:masters',
      sans: ['DNS:localhost', 'IP:127.0.0.1'],
      usage: 'server',
    });
    const caCert = new X509Certificate(await readFile(ca.cert));
    const cert = new X509Certificate(await readFile(leaf.cert));
    assert.ok(cert.checkIssued(caCert));
    assert.ok(cert.verify(caCert.publicKey));
    assert.equal(cert.subject, 'O=system:masters\nCN=kube-apiserver');
    assert.equal(cert.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1');
    assert.equal(cert.ca, false);
    assert.equal(caCert.ca, true);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  } finally {
    await temp.cleanup();
  }
});
