import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSluiceError } from '@sluice/errors';
import {
  AGENT_DEFAULTS,
  agentEnv,
  cliEnv,
  configError,
  ENGINE_DEFAULTS,
  engineEnv,
  parseEnv,
  SERVER_DEFAULTS,
  serverEnv,
  variableMeta,
} from './index.js';
import type { EnvShape } from './index.js';

test('unset and empty variables take their defaults', () => {
  const { values, problems } = parseEnv(serverEnv, { SLUICE_PORT: '', SLUICE_HOST: undefined });
  assert.deepEqual(problems, []);
  assert.equal(values.SLUICE_PORT, SERVER_DEFAULTS.port);
  assert.equal(values.SLUICE_HOST, SERVER_DEFAULTS.host);
  assert.equal(values.SLUICE_METRICS_PORT, undefined);
  assert.equal(values.SLUICE_LIMITS_INTERVAL_MS, SERVER_DEFAULTS.limitsIntervalMs);
});

test('values are typed: numbers, switches, URLs without their trailing slash', () => {
  const agent = parseEnv(agentEnv, {
    SLUICE_SERVER_URL: 'https://cp.example:8443//',
    SLUICE_AGENT_TOKEN: 'sk_agent',
    SLUICE_AGENT_HEARTBEAT_SECONDS: '2.5',
    SLUICE_DIND_HOST_ALIAS: 'Yes',
  });
  assert.deepEqual(agent.problems, []);
  assert.equal(agent.values.SLUICE_SERVER_URL, 'https://cp.example:8443');
  assert.equal(agent.values.SLUICE_AGENT_HEARTBEAT_SECONDS, 2.5);
  assert.equal(agent.values.SLUICE_DIND_HOST_ALIAS, true);
  assert.equal(agent.values.SLUICE_AGENT_CONCURRENCY, AGENT_DEFAULTS.concurrency);
  assert.equal(parseEnv(agentEnv, {}).values.SLUICE_DIND_HOST_ALIAS, false);
});

test('every problem at once, each naming the variable (and flag) and what it accepts', () => {
  const { problems } = parseEnv(agentEnv, {
    SLUICE_SERVER_URL: 'cp:8080',
    SLUICE_AGENT_CONCURRENCY: 'many',
    SLUICE_AGENT_QUEUE_SIZE: '-1',
    SLUICE_AGENT_POLL_WAIT: '61',
    SLUICE_DIND_HOST_ALIAS: 'maybe',
    SLUICE_KUBE_BURST: '1.5',
  });
  assert.deepEqual(problems, [
    '--server-url (SLUICE_SERVER_URL) must be an http(s) URL, got "cp:8080"',
    '--token (SLUICE_AGENT_TOKEN) is not set',
    '--concurrency (SLUICE_AGENT_CONCURRENCY) must be an integer from 1 to 1000, got "many"',
    '--queue-size (SLUICE_AGENT_QUEUE_SIZE) must be an integer from 1 to 100000, got "-1"',
    '--poll-wait (SLUICE_AGENT_POLL_WAIT) must be a number from 0 to 60 (seconds), got "61"',
    '--kube-burst (SLUICE_KUBE_BURST) must be an integer from 1 to 10000, got "1.5"',
    '--dind-host-alias (SLUICE_DIND_HOST_ALIAS) must be one of 1, 0, true, false, yes, no, on, off, got "maybe"',
  ]);
});

test('a secret is never echoed in a problem', () => {
  const { problems } = parseEnv(serverEnv, { SLUICE_BOOTSTRAP_TOKEN: 'short-secret' });
  assert.deepEqual(problems, ['SLUICE_BOOTSTRAP_TOKEN must be text of at least 20 characters']);
  const engine = parseEnv(engineEnv, { SLUICE_SERVER_URL: 'http://cp' });
  assert.deepEqual(engine.problems, ['SLUICE_ENGINE_TOKEN is not set']);
});

test('the CLI refuses what it used to turn silently into a default', () => {
  const { problems, values } = parseEnv(engineEnv, {
    SLUICE_SERVER_URL: 'http://cp',
    SLUICE_ENGINE_TOKEN: 'sk',
    SLUICE_DOCKER_WAIT_SECONDS: 'soon',
    SLUICE_LOG_DRAIN_SECONDS: '0',
  });
  assert.deepEqual(problems, [
    'SLUICE_DOCKER_WAIT_SECONDS must be a number from 0 to 86400 (seconds), got "soon"',
    'SLUICE_LOG_DRAIN_SECONDS must be a number from 1 to 86400 (seconds), got "0"',
  ]);
  assert.equal(parseEnv(engineEnv, {}).values.SLUICE_LOG_SPOOL_DIR, ENGINE_DEFAULTS.logSpoolDir);
  assert.equal(values.SLUICE_DOCKER_WAIT_SECONDS, undefined, 'a refused value is not defaulted');
  assert.deepEqual(parseEnv(cliEnv, { SLUICE_SERVER: 'ftp://x' }).problems, [
    '--server (SLUICE_SERVER) must be an http(s) URL, got "ftp://x"',
  ]);
});

test('DOCKER_TLS_VERIFY reads as the docker CLI reads it', () => {
  const tls = (value: string | undefined) =>
    parseEnv(cliEnv, { DOCKER_TLS_VERIFY: value }).values.DOCKER_TLS_VERIFY;
  assert.deepEqual(
    [tls(undefined), tls(''), tls('0'), tls('1'), tls('yes')],
    [false, false, false, true, true],
  );
});

test('every variable is described and says what it accepts', () => {
  const shapes: EnvShape[] = [serverEnv, cliEnv, agentEnv, engineEnv];
  for (const shape of shapes)
    for (const [name, schema] of Object.entries(shape)) {
      const meta = variableMeta(schema);
      assert.ok(meta.description.length > 10, `${name} has a description`);
      assert.ok(meta.accepts.length > 5, `${name} says what it accepts`);
    }
});

test('configError lists every problem under one code', () => {
  const err = configError(['A must be x, got "y"', 'B is not set'], {
    code: 'SLUICE_SERVER_CONFIG_INVALID',
    whose: "the server's",
  });
  assert.ok(isSluiceError(err));
  assert.equal(err.code, 'SLUICE_SERVER_CONFIG_INVALID');
  assert.equal(
    err.message,
    'The server\'s configuration has 2 problems:\n  - A must be x, got "y"\n  - B is not set',
  );
  assert.deepEqual(err.details?.problems, ['A must be x, got "y"', 'B is not set']);
});
