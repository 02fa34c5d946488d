/**
 * The key that encrypts secrets at rest: SLUICE_SECRET_KEY, else `server.key` in the data
 * directory (created once, mode 0600). Never stored in the database it protects.
 * @module
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { InputError } from '@sluice/errors';
import { exportSecretKey, generateSecretKey, importSecretKey } from '@sluice/pki';

export function loadSecretKey(options: { secretKey?: string; dataDir?: string }): KeyObject {
  if (options.secretKey !== undefined) return importSecretKey(options.secretKey);
  if (options.dataDir === undefined) {
    throw new InputError(
      'SLUICE_SECRET_KEY_MISSING',
      'No key for secrets at rest: SLUICE_SECRET_KEY is unset and there is no data directory',
      {
        hint: 'Set SLUICE_SECRET_KEY to 32 random bytes in base64 (openssl rand -base64 32), or pass --data-dir',
      },
    );
  }
  const file = join(options.dataDir, 'server.key');
  if (existsSync(file)) return importSecretKey(readFileSync(file, 'utf8'));
  const key = generateSecretKey();
  writeFileSync(file, `${exportSecretKey(key)}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
