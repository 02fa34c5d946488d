/**
 * Certificates shared by the pki tests: one CA with a server and a client certificate, and a
 * second, unrelated CA with its own pair for the "wrong CA" cases.
 * @module
 */
import { createCertificateAuthority } from './certificate-authority.js';
import type { CertificateAndKey, CertificateAuthority } from './certificate-authority.js';
import { issueClientCertificate, issueServerCertificate } from './issue-certificate.js';

export interface TestPki {
  ca: CertificateAuthority;
  server: CertificateAndKey;
  client: CertificateAndKey;
}

export async function createTestPki(name: string): Promise<TestPki> {
  const ca = await createCertificateAuthority({
    commonName: `${name} CA`,
    organization: 'Sluice tests',
    validityDays: 30,
  });
  const server = await issueServerCertificate(ca, {
    commonName: 'dind',
    dnsNames: ['dind', 'localhost', '*.dind.sluice.svc'],
    ipAddresses: ['127.0.0.1', '::1'],
    validityDays: 7,
  });
  const client = await issueClientCertificate(ca, {
    commonName: 'build-1',
    organization: 'sluice-engine',
    validityDays: 1,
  });
  return { ca, server, client };
}
