/**
 * ECDSA P-256 key pairs as WebCrypto keys (for signing with `@peculiar/x509`) and PEM (for
 * storage and for dockerd / node:tls). P-256 because generating it takes a millisecond where
 * RSA-4096 takes seconds, and Go's crypto/tls, which dockerd uses, accepts it since Go 1.0.
 * @module
 */
import { KeyObject, createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';
import { InputError } from '@sluice/errors';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const { subtle } = webcrypto;

/** The algorithm every Sluice key uses, for WebCrypto and `@peculiar/x509`. */
export const SIGNING_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export async function generateKeyPair(): Promise<CryptoKeyPair> {
  // Extractable, so the private key can be written out as PEM.
  return subtle.generateKey(SIGNING_ALGORITHM, true, ['sign', 'verify']);
}

/** PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), which both Go and OpenSSL read. */
export function privateKeyToPem(key: CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * A CA's private key PEM as a signing key, with its public key in SPKI DER so the caller can
 * check that it belongs to the CA certificate. Only P-256 keys, the ones Sluice makes.
 */
export async function importSigningKey(
  keyPem: string,
  code: string,
): Promise<{ privateKey: CryptoKey; spki: Buffer }> {
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey(keyPem);
  } catch (err) {
    throw new InputError(code, 'CA private key is not a readable PEM private key', { cause: err });
  }
  const curve = keyObject.asymmetricKeyDetails?.namedCurve;
  if (keyObject.asymmetricKeyType !== 'ec' || curve !== 'prime256v1') {
    const kind = `${keyObject.asymmetricKeyType ?? 'unknown'}${curve ? ` ${curve}` : ''}`;
    throw new InputError(code, `CA private key is ${kind}, expected an ECDSA P-256 key`);
  }
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  const privateKey = await subtle.importKey('pkcs8', der, SIGNING_ALGORITHM, false, ['sign']);
  const spki = createPublicKey(keyObject).export({ type: 'spki', format: 'der' });
  return { privateKey, spki };
}
