/**
 * Certificates for the TLS tests, made by `@sluice/pki` the way the control plane makes a
 * build's: a CA, the dind server certificate (naming `dind`, `localhost` and 127.0.0.1, not
 * 127.0.0.2, so dialling that address is a host mismatch) and the engine's client certificate.
 * @module
 */
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
} from '@sluice/pki';
import type { CertificateAndKey } from '@sluice/pki';
import { writeDockerCertPath } from '@sluice/testkit';
import { loadTlsFiles } from './docker-endpoint.js';
import type { TlsMaterial } from './docker-endpoint.js';

export interface DindPki {
  ca: CertificateAndKey;
  server: CertificateAndKey;
  client: CertificateAndKey;
}

export async function createDindPki(name: string): Promise<DindPki> {
  const ca = await createCertificateAuthority({ commonName: `${name} CA`, validityDays: 30 });
  const [server, client] = await Promise.all([
    issueServerCertificate(ca, {
      commonName: 'dind',
      dnsNames: ['dind', 'localhost'],
      ipAddresses: ['127.0.0.1'],
      validityDays: 7,
    }),
    issueClientCertificate(ca, { commonName: `${name}-engine`, validityDays: 1 }),
  ]);
  return { ca, server, client };
}

/**
 * The TLS material the engine would load: `trusted` is the CA in ca.pem, `client` the pair in
 * cert.pem and key.pem, written to `dir` and read back with `loadTlsFiles` as DOCKER_CERT_PATH.
 */
export async function engineTls(
  dir: string,
  trusted: CertificateAndKey,
  client: CertificateAndKey,
): Promise<TlsMaterial> {
  const files = { caPem: trusted.certPem, certPem: client.certPem, keyPem: client.keyPem };
  return loadTlsFiles(await writeDockerCertPath(dir, files));
}
