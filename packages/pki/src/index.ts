/**
 * `@sluice/pki`: the control plane's internal CA and its secrets at rest.
 * @module
 */
export { createCertificateAuthority, PKI_CA_INVALID } from './certificate-authority.js';
export type {
  CertificateAndKey,
  CertificateAuthority,
  CreateCertificateAuthorityOptions,
} from './certificate-authority.js';
export { issueServerCertificate, issueClientCertificate } from './issue-certificate.js';
export type {
  IssueServerCertificateOptions,
  IssueClientCertificateOptions,
} from './issue-certificate.js';
export { PKI_OPTIONS_INVALID } from './certificate-options.js';
export type { NameOptions, ValidityOptions } from './certificate-options.js';
export { describeCertificate, PKI_CERTIFICATE_INVALID } from './describe-certificate.js';
export type { CertificateDescription } from './describe-certificate.js';
export {
  generateSecretKey,
  deriveSecretKey,
  exportSecretKey,
  importSecretKey,
  SECRET_KEY_BYTES,
  SECRET_KEY_INVALID,
} from './secret-key.js';
export type { DeriveSecretKeyOptions } from './secret-key.js';
export {
  encryptSecret,
  decryptSecret,
  isEncryptedSecret,
  SECRET_CIPHERTEXT_INVALID,
  SECRET_DECRYPT_FAILED,
} from './secret-encryption.js';
export type { SecretEncryptionOptions } from './secret-encryption.js';
