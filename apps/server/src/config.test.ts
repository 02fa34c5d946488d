import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSluiceError } from '@sluice/errors';
import { loadServerConfig } from './config.js';

test('the workflow limits pass runs every 10 s unless SLUICE_LIMITS_INTERVAL_MS says otherwise', () => {
  assert.equal(loadServerConfig({ dataDir: '/data' }, {}).limitsIntervalMs, 10_000);
  const config = loadServerConfig({ dataDir: '/data' }, { SLUICE_LIMITS_INTERVAL_MS: '250' });
  assert.equal(config.limitsIntervalMs, 250);
});

test('a limits interval under 100 ms is refused, naming the variable', () => {
  assert.throws(
    () => loadServerConfig({ dataDir: '/data' }, { SLUICE_LIMITS_INTERVAL_MS: '0' }),
    (err) =>
      isSluiceError(err) &&
      err.message.includes('SLUICE_LIMITS_INTERVAL_MS must be at least 100, got "0"'),
  );
});
