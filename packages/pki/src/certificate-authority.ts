/**
 * The control plane's internal CA: a self-signed ECDSA P-256 root that signs each runtime's
 * dind server certificate and each build's engine client certificate, so engine and dind
 * authenticate each other (dockerd `--tlsverify`) without the Codefresh platform's CA.
 * @module
 */
import { X509Certificate } from 'node:crypto';
import type { webcrypto } from 'node:crypto';
import { InputError } from '@sluice/errors';
import {
  assertNoIssues,
  nameIssues,
  randomSerialNumber,
  subjectName,
  validityIssues,
  validityWindow,
} from './certificate-options.js';
import type { NameOptions, ValidityOptions } from './certificate-options.js';
import {
  SIGNING_ALGORITHM,
  generateKeyPair,
  importSigningKey,
  privateKeyToPem,
} from './key-pair.js';
import { x509 } from './x509-library.js';

export const PKI_CA_INVALID = 'SLUICE_PKI_CA_INVALID';

/** A certificate and its private key, both PEM. */
export interface CertificateAndKey {
  certPem: string;
  /** PKCS#8 PEM. A secret: store it encrypted, never log it. */
  keyPem: string;
}

/** The CA's certificate and private key, as `createCertificateAuthority` returns them. */
export type CertificateAuthority = CertificateAndKey;

export interface CreateCertificateAuthorityOptions extends NameOptions, ValidityOptions {}

export async function createCertificateAuthority(
  options: CreateCertificateAuthorityOptions,
): Promise<CertificateAuthority> {
  assertNoIssues('certificate authority', [...nameIssues(options), ...validityIssues(options)]);
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    name: subjectName(options),
    ...validityWindow(options),
    signingAlgorithm: SIGNING_ALGORITHM,
    keys,
    extensions: [
      // pathLength 0: this CA signs leaves only, never another CA.
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: privateKeyToPem(keys.privateKey) };
}

/** What issuing needs from a CA, after checking that it can issue at all. */
export interface LoadedIssuer {
  cert: InstanceType<typeof x509.X509Certificate>;
  privateKey: webcrypto.CryptoKey;
  notAfter: Date;
}

/**
 * Reads a stored CA and refuses one that cannot issue usable certificates: unreadable, not a CA,
 * expired at `now`, or whose key is not the certificate's.
 */
export async function loadIssuer(ca: CertificateAuthority, now: Date): Promise<LoadedIssuer> {
  let nodeCert: X509Certificate;
  try {
    nodeCert = new X509Certificate(ca.certPem);
  } catch (err) {
    throw new InputError(PKI_CA_INVALID, 'CA certificate is not a readable PEM certificate', {
      cause: err,
    });
  }
  if (!nodeCert.ca)
    throw new InputError(PKI_CA_INVALID, `Certificate "${oneLine(nodeCert.subject)}" is not a CA`);
  const notAfter = new Date(nodeCert.validTo);
  if (notAfter.getTime() <= now.getTime())
    throw new InputError(PKI_CA_INVALID, `CA certificate expired at ${notAfter.toISOString()}`, {
      hint: 'create a new CA and reissue the server and client certificates',
    });
  const { privateKey, spki } = await importSigningKey(ca.keyPem, PKI_CA_INVALID);
  const certSpki = nodeCert.publicKey.export({ type: 'spki', format: 'der' });
  if (!certSpki.equals(spki))
    throw new InputError(PKI_CA_INVALID, 'CA private key does not belong to the CA certificate');
  return { cert: new x509.X509Certificate(ca.certPem), privateKey, notAfter };
}

/** Node prints a subject one attribute per line. */
export function oneLine(name: string): string {
  return name.split('\n').join(', ');
}
