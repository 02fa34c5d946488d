import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SERVER_DEFAULTS } from '@sluice/config';
import { isSluiceError } from '@sluice/errors';
import { loadServerConfig } from './config.js';
import type { ServerFlags } from './config.js';

/** The problems `loadServerConfig` refuses `env` with (a data directory given unless `flags` say otherwise). */
function problemsOf(env: NodeJS.ProcessEnv, flags: ServerFlags = { dataDir: '/data' }): unknown {
  try {
    loadServerConfig(flags, env);
    return 'accepted';
  } catch (err) {
    return isSluiceError(err) && err.code === 'SLUICE_SERVER_CONFIG_INVALID'
      ? err.details?.problems
      : err;
  }
}

test('the workflow limits pass runs every 10 s unless SLUICE_LIMITS_INTERVAL_MS says otherwise', () => {
  const config = loadServerConfig({ dataDir: '/data' }, {});
  assert.equal(config.limitsIntervalMs, SERVER_DEFAULTS.limitsIntervalMs);
  assert.equal(config.port, SERVER_DEFAULTS.port);
  assert.equal(config.metricsHost, SERVER_DEFAULTS.host);
  assert.ok(Object.isFrozen(config));
  const tuned = loadServerConfig({ dataDir: '/data' }, { SLUICE_LIMITS_INTERVAL_MS: '250' });
  assert.equal(tuned.limitsIntervalMs, 250);
});

test('a limits interval under 100 ms is refused, naming the variable', () => {
  assert.deepEqual(problemsOf({ SLUICE_LIMITS_INTERVAL_MS: '0' }), [
    'SLUICE_LIMITS_INTERVAL_MS must be an integer of at least 100 (milliseconds), got "0"',
  ]);
});

test("a commit status's name is sluice/{project}/{pipeline} unless set; only those two are replaced", () => {
  assert.equal(
    loadServerConfig({ dataDir: '/data' }, {}).commitStatusContext,
    'sluice/{project}/{pipeline}',
  );
  const env = { SLUICE_COMMIT_STATUS_CONTEXT: 'ci/{pipeline}' };
  assert.equal(loadServerConfig({ dataDir: '/data' }, env).commitStatusContext, 'ci/{pipeline}');
  assert.deepEqual(problemsOf({ SLUICE_COMMIT_STATUS_CONTEXT: 'ci/{branch}' }), [
    'SLUICE_COMMIT_STATUS_CONTEXT names {branch}; only {project} and {pipeline} are replaced',
  ]);
});

test('flags win over the environment, and a flag given leaves its variable unread', () => {
  const config = loadServerConfig(
    { port: 0, host: '0.0.0.0', dataDir: '/flag' },
    { SLUICE_PORT: 'eighty', SLUICE_HOST: '10.0.0.1', SLUICE_DATA_DIR: '/env' },
  );
  assert.deepEqual([config.port, config.host, config.dataDir], [0, '0.0.0.0', '/flag']);
  assert.equal(config.metricsHost, '0.0.0.0');
});

test('every problem at once, with the rules between settings, and no secret echoed', () => {
  assert.deepEqual(
    problemsOf(
      {
        SLUICE_PORT: '70000',
        SLUICE_TASK_LEASE_MS: '-5',
        SLUICE_PUBLIC_URL: 'cp.example',
        SLUICE_BOOTSTRAP_TOKEN: 'hunter2',
        SLUICE_METRICS_PORT: '9090',
      },
      {},
    ),
    [
      '--port (SLUICE_PORT) must be an integer from 0 to 65535, got "70000"',
      'SLUICE_BOOTSTRAP_TOKEN must be text of at least 20 characters',
      'SLUICE_PUBLIC_URL must be an http(s) URL, got "cp.example"',
      'SLUICE_TASK_LEASE_MS must be an integer of at least 0 (milliseconds), got "-5"',
      'Give a data directory (--data-dir or SLUICE_DATA_DIR) for the embedded database, or DATABASE_URL for PostgreSQL',
    ],
  );
});
