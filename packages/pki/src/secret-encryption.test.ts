import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSecretKey } from 'node:crypto';
import { decryptSecret, encryptSecret, isEncryptedSecret } from './secret-encryption.js';
import {
  deriveSecretKey,
  exportSecretKey,
  generateSecretKey,
  importSecretKey,
} from './secret-key.js';

const key = generateSecretKey();

test('a secret survives the round trip, including unicode and the empty string', () => {
  for (const plaintext of ['hunter2', '', 'pässwörd ✓\nline two', 'x'.repeat(10_000)]) {
    const encrypted = encryptSecret(plaintext, key);
    assert.match(encrypted, /^v1:[\w-]{16}:[\w-]{22}:[\w-]*$/);
    assert.ok(isEncryptedSecret(encrypted));
    assert.equal(decryptSecret(encrypted, key), plaintext);
  }
});

test('the same plaintext encrypts differently each time (random IV)', () => {
  assert.notEqual(encryptSecret('same', key), encryptSecret('same', key));
});

test('a tampered ciphertext, tag or IV is rejected', () => {
  const encrypted = encryptSecret('deploy-token', key);
  const [version, iv, tag, ciphertext] = encrypted.split(':') as [string, string, string, string];
  const flip = (part: string): string => {
    const bytes = Buffer.from(part, 'base64url');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    return bytes.toString('base64url');
  };
  for (const tampered of [
    [version, iv, tag, flip(ciphertext)],
    [version, iv, flip(tag), ciphertext],
    [version, flip(iv), tag, ciphertext],
  ]) {
    assert.throws(() => decryptSecret(tampered.join(':'), key), {
      name: 'InputError',
      code: 'SLUICE_SECRET_DECRYPT_FAILED',
    });
  }
});

test('a wrong key is rejected', () => {
  const encrypted = encryptSecret('deploy-token', key);
  assert.throws(() => decryptSecret(encrypted, generateSecretKey()), {
    code: 'SLUICE_SECRET_DECRYPT_FAILED',
  });
});

test('associated data must match', () => {
  const encrypted = encryptSecret('t', key, { associatedData: 'pipeline/1/secret/TOKEN' });
  assert.equal(decryptSecret(encrypted, key, { associatedData: 'pipeline/1/secret/TOKEN' }), 't');
  for (const associatedData of ['pipeline/2/secret/TOKEN', undefined])
    assert.throws(() => decryptSecret(encrypted, key, { associatedData }), {
      code: 'SLUICE_SECRET_DECRYPT_FAILED',
    });
});

test('malformed encrypted values are named', () => {
  const cases: [string, RegExp][] = [
    ['plain text', /version "plain text", expected "v1"/],
    ['v2:a:b:c', /version "v2"/],
    ['v1:a:b', /has 3 parts, expected 4/],
    ['v1:a+b:c:d', /not base64url/],
    ['v1:AAAA:AAAA:AAAA', /3-byte IV and 3-byte tag/],
  ];
  for (const [value, message] of cases)
    assert.throws(() => decryptSecret(value, key), {
      code: 'SLUICE_SECRET_CIPHERTEXT_INVALID',
      message,
    });
});

test('keys other than 32-byte secret keys are refused', () => {
  assert.throws(() => encryptSecret('x', createSecretKey(Buffer.alloc(16))), {
    code: 'SLUICE_SECRET_KEY_INVALID',
  });
});

test('an exported key imports to the same key', () => {
  const text = exportSecretKey(key);
  assert.equal(Buffer.from(text, 'base64').length, 32);
  const imported = importSecretKey(`${text}\n`);
  assert.equal(decryptSecret(encryptSecret('s', key), imported), 's');
  for (const bad of ['', 'not base64!', Buffer.alloc(16).toString('base64')])
    assert.throws(() => importSecretKey(bad), { code: 'SLUICE_SECRET_KEY_INVALID' });
});

test('a derived key is deterministic per passphrase and salt', async () => {
  const passphrase = 'correct horse battery staple';
  const a = await deriveSecretKey(passphrase);
  const b = await deriveSecretKey(passphrase);
  assert.equal(exportSecretKey(a), exportSecretKey(b));
  assert.equal(decryptSecret(encryptSecret('s', a), b), 's');
  const salted = await deriveSecretKey(passphrase, { salt: 'other' });
  assert.notEqual(exportSecretKey(salted), exportSecretKey(a));
  await assert.rejects(deriveSecretKey('short'), {
    code: 'SLUICE_SECRET_KEY_INVALID',
    message: 'Secret key passphrase has 5 characters, fewer than 16',
  });
});
