/**
 * What a PEM certificate says, read with node:crypto: for the API, the CLI and renewal checks.
 * @module
 */
import { X509Certificate } from 'node:crypto';
import { InputError } from '@sluice/errors';
import { oneLine } from './certificate-authority.js';

export const PKI_CERTIFICATE_INVALID = 'SLUICE_PKI_CERTIFICATE_INVALID';

const EXTENDED_KEY_USAGE_NAMES: Readonly<Record<string, string>> = {
  '1.3.6.1.5.5.7.3.1': 'serverAuth',
  '1.3.6.1.5.5.7.3.2': 'clientAuth',
};

export interface CertificateDescription {
  /** The subject, attributes separated by `, `: `O=Sluice, CN=dind`. */
  subject: string;
  commonName: string | undefined;
  issuer: string;
  /** Upper-case hex, as node:crypto prints it. */
  serialNumber: string;
  dnsNames: string[];
  ipAddresses: string[];
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the DER, colon-separated upper-case hex (the `openssl x509 -fingerprint` form). */
  fingerprint256: string;
  isCertificateAuthority: boolean;
  /** `serverAuth`, `clientAuth`, or the OID of any other purpose. */
  extendedKeyUsages: string[];
}

export function describeCertificate(certPem: string): CertificateDescription {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    throw new InputError(PKI_CERTIFICATE_INVALID, 'Not a readable PEM certificate', {
      cause: err,
    });
  }
  const altNames = splitSubjectAltName(cert.subjectAltName);
  return {
    subject: oneLine(cert.subject),
    commonName: /^CN=(.*)$/m.exec(cert.subject)?.[1],
    issuer: oneLine(cert.issuer),
    serialNumber: cert.serialNumber,
    dnsNames: altNames.filter((n) => n.startsWith('DNS:')).map((n) => n.slice('DNS:'.length)),
    ipAddresses: altNames
      .filter((n) => n.startsWith('IP Address:'))
      .map((n) => canonicalIp(n.slice('IP Address:'.length))),
    notBefore: new Date(cert.validFrom),
    notAfter: new Date(cert.validTo),
    fingerprint256: cert.fingerprint256,
    isCertificateAuthority: cert.ca,
    // node:crypto calls the extended key usages `keyUsage`.
    extendedKeyUsages: (cert.keyUsage ?? []).map((oid) => EXTENDED_KEY_USAGE_NAMES[oid] ?? oid),
  };
}

/** `DNS:a, IP Address:1.2.3.4`; the names Sluice issues contain no commas or quotes. */
function splitSubjectAltName(text: string | undefined): string[] {
  if (text === undefined || text === '') return [];
  return text.split(', ');
}

/** node:crypto prints IPv6 uncompressed (`0:0:0:0:0:0:0:1`); the WHATWG URL parser compresses it. */
function canonicalIp(ip: string): string {
  if (!ip.includes(':')) return ip;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
}
