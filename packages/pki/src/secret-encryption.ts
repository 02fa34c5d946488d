/**
 * Secrets at rest: AES-256-GCM with a fresh random 96-bit IV per value, written as
 * `v1:<iv>:<tag>:<ciphertext>` (base64url). The version prefix lets a later format or key
 * rotation coexist with stored values. Optional associated data binds a value to where it is
 * stored (e.g. `pipeline/42/secret/TOKEN`), so a ciphertext copied to another row fails.
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { InputError } from '@sluice/errors';
import { assertSecretKey } from './secret-key.js';

export const SECRET_CIPHERTEXT_INVALID = 'SLUICE_SECRET_CIPHERTEXT_INVALID';
export const SECRET_DECRYPT_FAILED = 'SLUICE_SECRET_DECRYPT_FAILED';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export interface SecretEncryptionOptions {
  /** Must be the same to decrypt; not secret, not stored in the output. */
  associatedData?: string;
}

export function encryptSecret(
  plaintext: string,
  key: KeyObject,
  options: SecretEncryptionOptions = {},
): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, assertSecretKey(key), iv, { authTagLength: TAG_BYTES });
  if (options.associatedData !== undefined)
    cipher.setAAD(Buffer.from(options.associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
  return [VERSION, ...parts].join(':');
}

export function decryptSecret(
  encrypted: string,
  key: KeyObject,
  options: SecretEncryptionOptions = {},
): string {
  const { iv, tag, ciphertext } = splitEncrypted(encrypted);
  const decipher = createDecipheriv(ALGORITHM, assertSecretKey(key), iv, {
    authTagLength: TAG_BYTES,
  });
  decipher.setAuthTag(tag);
  if (options.associatedData !== undefined)
    decipher.setAAD(Buffer.from(options.associatedData, 'utf8'));
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch (err) {
    // GCM cannot tell a wrong key from a changed ciphertext: both fail authentication.
    throw new InputError(
      SECRET_DECRYPT_FAILED,
      'Secret could not be decrypted: wrong key, wrong associated data, or the value was altered',
      { cause: err },
    );
  }
}

/** True when `value` looks like this module's output (any version), e.g. for migrations. */
export function isEncryptedSecret(value: string): boolean {
  return /^v\d+:/.test(value);
}

function splitEncrypted(encrypted: string): { iv: Buffer; tag: Buffer; ciphertext: Buffer } {
  const parts = encrypted.split(':');
  const [version, iv, tag, ciphertext] = parts;
  if (version !== VERSION)
    throw invalid(`Encrypted secret has version "${version ?? ''}", expected "${VERSION}"`);
  if (parts.length !== 4 || iv === undefined || tag === undefined || ciphertext === undefined)
    throw invalid(`Encrypted secret has ${parts.length} parts, expected 4`);
  if (![iv, tag, ciphertext].every((p) => BASE64URL.test(p)))
    throw invalid('Encrypted secret is not base64url');
  const decoded = {
    iv: Buffer.from(iv, 'base64url'),
    tag: Buffer.from(tag, 'base64url'),
    ciphertext: Buffer.from(ciphertext, 'base64url'),
  };
  if (decoded.iv.length !== IV_BYTES || decoded.tag.length !== TAG_BYTES)
    throw invalid(
      `Encrypted secret has a ${decoded.iv.length}-byte IV and ${decoded.tag.length}-byte tag, expected ${IV_BYTES} and ${TAG_BYTES}`,
    );
  return decoded;
}

function invalid(message: string): InputError {
  return new InputError(SECRET_CIPHERTEXT_INVALID, message);
}
