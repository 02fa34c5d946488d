/**
 * Leaf certificates signed by the internal CA: the dind server certificate of a runtime
 * environment (serverAuth, with the names the engine dials) and the client certificate of one
 * build's engine (clientAuth). Certificates never outlive the CA that signs them.
 * @module
 */
import {
  assertNoIssues,
  nameIssues,
  randomSerialNumber,
  subjectAltNameIssues,
  subjectName,
  validityIssues,
  validityWindow,
} from './certificate-options.js';
import type { NameOptions, ValidityOptions } from './certificate-options.js';
import { loadIssuer } from './certificate-authority.js';
import type { CertificateAndKey, CertificateAuthority } from './certificate-authority.js';
import { SIGNING_ALGORITHM, generateKeyPair, privateKeyToPem } from './key-pair.js';
import { x509 } from './x509-library.js';

export interface IssueServerCertificateOptions extends NameOptions, ValidityOptions {
  /** DNS subject alternative names, e.g. `dind`, `*.dind.sluice.svc`. */
  dnsNames?: readonly string[];
  /** IP subject alternative names, e.g. `127.0.0.1`. */
  ipAddresses?: readonly string[];
}

export interface IssueClientCertificateOptions extends NameOptions, ValidityOptions {}

/**
 * A dind server certificate. Go's TLS stack (dockerd, the docker CLI) ignores the common name
 * when checking a host, so at least one DNS name or IP address is required.
 */
export async function issueServerCertificate(
  ca: CertificateAuthority,
  options: IssueServerCertificateOptions,
): Promise<CertificateAndKey> {
  const dnsNames = options.dnsNames ?? [];
  const ipAddresses = options.ipAddresses ?? [];
  const issues = [
    ...nameIssues(options),
    ...validityIssues(options),
    ...subjectAltNameIssues(dnsNames, ipAddresses),
  ];
  if (dnsNames.length + ipAddresses.length === 0)
    issues.push('a server certificate needs at least one of dnsNames and ipAddresses');
  assertNoIssues('server certificate', issues);
  const names = [
    ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...ipAddresses.map((value) => ({ type: 'ip' as const, value })),
  ];
  return issueLeaf(ca, options, [
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(names),
  ]);
}

/** An engine's client certificate, which dind's `--tlsverify` checks against the CA. */
export async function issueClientCertificate(
  ca: CertificateAuthority,
  options: IssueClientCertificateOptions,
): Promise<CertificateAndKey> {
  assertNoIssues('client certificate', [...nameIssues(options), ...validityIssues(options)]);
  return issueLeaf(ca, options, [
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
  ]);
}

async function issueLeaf(
  ca: CertificateAuthority,
  options: NameOptions & ValidityOptions,
  extensions: InstanceType<typeof x509.Extension>[],
): Promise<CertificateAndKey> {
  const now = options.now ?? new Date();
  const issuer = await loadIssuer(ca, now);
  const window = validityWindow({ ...options, now });
  const notAfter =
    window.notAfter.getTime() > issuer.notAfter.getTime() ? issuer.notAfter : window.notAfter;
  const keys = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: subjectName(options),
    issuer: issuer.cert.subjectName,
    notBefore: window.notBefore,
    notAfter,
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: issuer.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      // ECDSA keys sign; keyEncipherment is for RSA key transport and does not apply.
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...extensions,
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.cert.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: privateKeyToPem(keys.privateKey) };
}
