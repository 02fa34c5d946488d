/**
 * The server's key for secrets at rest: 32 bytes held in a node:crypto `KeyObject`, which
 * prints as `SecretKeyObject { ... }` rather than its bytes if it ever reaches a log.
 * @module
 */
import { createSecretKey, randomBytes, scrypt } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { InputError } from '@sluice/errors';

export const SECRET_KEY_INVALID = 'SLUICE_SECRET_KEY_INVALID';

/** AES-256 key length in bytes. */
export const SECRET_KEY_BYTES = 32;
const MIN_PASSPHRASE_LENGTH = 16;
/**
 * scrypt cost (2^15, r 8): about 100 ms and 32 MiB once at start-up. Changing any of these
 * changes every derived key, so they are part of the `v1` format.
 */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const DEFAULT_SALT = 'sluice/secret-key/v1';

export interface DeriveSecretKeyOptions {
  /** Domain separation; keys derived with different salts are unrelated. */
  salt?: string;
}

/** A new random key; keep it with `exportSecretKey`. */
export function generateSecretKey(): KeyObject {
  return createSecretKey(randomBytes(SECRET_KEY_BYTES));
}

/**
 * A key from an operator's passphrase (e.g. `SLUICE_SERVER_SECRET_KEY`), stretched with scrypt
 * so a guessable passphrase still costs an attacker time per guess.
 */
export async function deriveSecretKey(
  passphrase: string,
  options: DeriveSecretKeyOptions = {},
): Promise<KeyObject> {
  if (passphrase.length < MIN_PASSPHRASE_LENGTH)
    throw new InputError(
      SECRET_KEY_INVALID,
      `Secret key passphrase has ${passphrase.length} characters, fewer than ${MIN_PASSPHRASE_LENGTH}`,
      { hint: 'use `openssl rand -base64 32` or a longer passphrase' },
    );
  const bytes = await new Promise<Buffer>((resolve, reject) => {
    scrypt(passphrase, options.salt ?? DEFAULT_SALT, SECRET_KEY_BYTES, SCRYPT, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
  return createSecretKey(bytes);
}

/** Base64 of the 32 key bytes, for a config file or an environment variable. */
export function exportSecretKey(key: KeyObject): string {
  return assertSecretKey(key).export().toString('base64');
}

/** The inverse of `exportSecretKey`. */
export function importSecretKey(text: string): KeyObject {
  const trimmed = text.trim();
  const bytes = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || bytes.length !== SECRET_KEY_BYTES)
    throw new InputError(
      SECRET_KEY_INVALID,
      `Secret key is not the base64 of ${SECRET_KEY_BYTES} bytes (got ${trimmed.length} characters)`,
    );
  return createSecretKey(bytes);
}

/** Refuses anything but a 32-byte secret key, so AES-256 is never silently something else. */
export function assertSecretKey(key: KeyObject): KeyObject {
  if (key.type !== 'secret' || key.symmetricKeySize !== SECRET_KEY_BYTES)
    throw new InputError(
      SECRET_KEY_INVALID,
      `Secret key must be a ${SECRET_KEY_BYTES}-byte secret KeyObject, got a ${key.type} key`,
    );
  return key;
}
