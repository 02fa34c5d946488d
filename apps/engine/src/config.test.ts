// The engine's configuration (config.ts): its own variables, the Docker and proxy variables it
// shares with the CLI, and the step settings, each refused one named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLEANER_DEFAULTS, CLI_DEFAULTS, ENGINE_DEFAULTS } from '@sluice/config';
import { isSluiceError } from '@sluice/errors';
import { loadEngineConfig, startedAsStandby } from './config.js';

test("the engine's settings: defaults, and every refused one named without echoing the token", () => {
  const base = { SLUICE_SERVER_URL: 'http://cp:8080', SLUICE_ENGINE_TOKEN: 'sk_engine_secret' };
  const engine = loadEngineConfig(base);
  assert.equal(engine.dockerWaitSeconds, ENGINE_DEFAULTS.dockerWaitSeconds);
  assert.equal(engine.logDrainSeconds, ENGINE_DEFAULTS.logDrainSeconds);
  assert.equal(engine.logSpoolDir, ENGINE_DEFAULTS.logSpoolDir);
  assert.equal(loadEngineConfig({ ...base, SLUICE_LOG_DRAIN_SECONDS: '2.5' }).logDrainSeconds, 2.5);
  assert.throws(
    () =>
      loadEngineConfig({
        SLUICE_ENGINE_TOKEN: 'sk_engine_secret',
        SLUICE_DOCKER_WAIT_SECONDS: 'abc',
        SLUICE_LOG_DRAIN_SECONDS: '-3',
      }),
    (err) => {
      assert.ok(isSluiceError(err));
      assert.equal(err.code, 'SLUICE_ENGINE_CONFIG_INVALID');
      assert.deepEqual(err.details?.problems, [
        'SLUICE_SERVER_URL is not set',
        'SLUICE_DOCKER_WAIT_SECONDS must be a number from 0 to 86400 (seconds), got "abc"',
        'SLUICE_LOG_DRAIN_SECONDS must be a number from 1 to 86400 (seconds), got "-3"',
      ]);
      assert.ok(!err.message.includes('sk_engine_secret'));
      return true;
    },
  );
});

test('the in-dind cleaner runs only with CLEAN_DOCKER, with the runtime defaults of reference §3.4', () => {
  const base = { SLUICE_SERVER_URL: 'http://cp:8080', SLUICE_ENGINE_TOKEN: 'sk_engine_x' };
  assert.equal(loadEngineConfig(base).cleaner, undefined);
  const cleaner = loadEngineConfig({ ...base, CLEAN_DOCKER: 'true' }).cleaner;
  assert.deepEqual(cleaner, { ...CLEANER_DEFAULTS, background: true });
  assert.equal(cleaner.imageRetainSeconds, 4 * 3600);
  assert.equal(cleaner.cleanPeriodBuilds, 5);
  const tuned = loadEngineConfig({
    ...base,
    CLEAN_DOCKER: '1',
    DISABLE_CLEANER_AGENT: 'yes',
    IMAGE_RETAIN_PERIOD: '60',
    DISK_USAGE_THRESHOLD: '0.5',
  }).cleaner;
  assert.equal(tuned?.background, false);
  assert.equal(tuned?.imageRetainSeconds, 60);
  assert.equal(tuned?.diskUsageThreshold, 0.5);
  assert.throws(
    () => loadEngineConfig({ ...base, CLEAN_DOCKER: '1', INODES_USAGE_THRESHOLD: '80' }),
    (err) => {
      assert.ok(isSluiceError(err));
      assert.deepEqual(err.details?.problems, [
        'INODES_USAGE_THRESHOLD must be a number from 0 to 1, got "80"',
      ]);
      return true;
    },
  );
});

test('the Docker, proxy, git image and step variables come from the same environment', () => {
  const base = { SLUICE_SERVER_URL: 'http://cp:8080', SLUICE_ENGINE_TOKEN: 'sk_engine_x' };
  const plain = loadEngineConfig(base);
  assert.deepEqual(plain.docker, {
    host: CLI_DEFAULTS.dockerHost,
    tlsVerify: false,
    certPath: undefined,
  });
  assert.equal(plain.gitImage, undefined);
  const engine = loadEngineConfig({
    ...base,
    DOCKER_HOST: 'tcp://dind:1300',
    DOCKER_TLS_VERIFY: '1',
    DOCKER_CERT_PATH: '/certs',
    SLUICE_GIT_IMAGE: 'git:2',
    HTTPS_PROXY: 'http://proxy:3128',
    SLUICE_USER_ENV_STAGE: 'ci',
  });
  assert.deepEqual(engine.docker, { host: 'tcp://dind:1300', tlsVerify: true, certPath: '/certs' });
  assert.equal(engine.gitImage, 'git:2');
  assert.deepEqual(engine.proxy, { HTTPS_PROXY: 'http://proxy:3128' });
  assert.deepEqual(engine.stepEnv, {
    HTTPS_PROXY: 'http://proxy:3128',
    SLUICE_USER_ENV_STAGE: 'ci',
  });
  assert.ok(Object.isFrozen(engine));
});

test('an engine is a standby only when its agent gave it a slot', () => {
  assert.equal(startedAsStandby({}), false);
  assert.equal(startedAsStandby({ SLUICE_ENGINE_SLOT: '' }), false);
  assert.equal(startedAsStandby({ SLUICE_ENGINE_SLOT: 'a1b2' }), true);
});
