import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { CLI_DEFAULTS } from '@sluice/config';
import { isSluiceError } from '@sluice/errors';
import { dockerEndpoint, loadConfig, parsePairs, serverContext } from './config.js';
import { writeContexts } from './contexts/context-file.js';

test('DOCKER_HOST, colour and proxy settings come from the environment', () => {
  const config = loadConfig(
    { DOCKER_HOST: 'tcp://10.1.2.3:2375', NO_COLOR: '1', HTTPS_PROXY: 'http://proxy:3128' },
    true,
  );
  assert.equal(config.dockerHost, 'tcp://10.1.2.3:2375');
  assert.equal(config.color, false);
  assert.deepEqual(config.proxy, { HTTPS_PROXY: 'http://proxy:3128' });
  assert.ok(Object.isFrozen(config));
});

test('the local socket is the default and a TTY gets colour', () => {
  const config = loadConfig({}, true);
  assert.equal(config.dockerHost, CLI_DEFAULTS.dockerHost);
  assert.equal(config.color, true);
});

test('the --docker-host flag wins, and TLS without certificates is a clear error', () => {
  const config = loadConfig({ DOCKER_TLS_VERIFY: '1' }, false);
  assert.throws(
    () => dockerEndpoint(config, 'tcp://dind:1300'),
    /TLS is required for tcp:\/\/dind:1300 but DOCKER_CERT_PATH is not set/,
  );
  assert.deepEqual(dockerEndpoint(loadConfig({}, false), 'unix:///tmp/d.sock'), {
    host: 'unix:///tmp/d.sock',
  });
});

test('--var pairs keep = in values and reject a pair without a name', () => {
  assert.deepEqual(parsePairs('--var', ['A=1', 'B=x=y', 'C=']), { A: '1', B: 'x=y', C: '' });
  assert.throws(() => parsePairs('--secret', ['TOKEN']), /--secret expects KEY=value, got "TOKEN"/);
  assert.throws(() => parsePairs('--var', ['=v']), /--var expects KEY=value/);
});

test('registry credentials and step-type directories come from the environment', () => {
  const config = loadConfig(
    {
      SLUICE_REGISTRY_USERNAME: 'ci',
      SLUICE_REGISTRY_PASSWORD: 'pw',
      SLUICE_STEP_TYPES: ['/a', '', 'b'].join(delimiter),
    },
    true,
    false,
  );
  assert.equal(config.registryUsername, 'ci');
  assert.equal(config.registryPassword, 'pw');
  assert.deepEqual(config.stepTypeDirs, ['/a', 'b']);
  assert.equal(config.interactive, false, 'questions need a terminal on both ends');
  assert.equal(loadConfig({}, true, true).interactive, true);
  assert.deepEqual(loadConfig({}, true, true).stepTypeDirs, []);
});

test('server and token: flags, then the environment, then the context; a context token only goes to its URL', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sluice-ctx-')), 'config.yaml');
  writeContexts(file, {
    current: 'a',
    contexts: [
      { name: 'a', url: 'http://a:1', token: 'tok-a' },
      { name: 'b', url: 'http://b:1', token: 'tok-b' },
    ],
  });
  const config = (env: NodeJS.ProcessEnv) => loadConfig({ SLUICE_CONFIG: file, ...env }, false);
  const fromFile = serverContext(config({}), {});
  assert.deepEqual(
    [fromFile.server, fromFile.token, fromFile.source.context],
    ['http://a:1', 'tok-a', 'a'],
  );
  const env = serverContext(config({ SLUICE_SERVER: 'http://env:1', SLUICE_TOKEN: 'tok-env' }), {});
  assert.deepEqual(
    [env.server, env.token, env.source.server],
    ['http://env:1', 'tok-env', 'SLUICE_SERVER'],
  );
  // SLUICE_SERVER elsewhere with no SLUICE_TOKEN: the context's token is not sent there.
  assert.throws(
    () => serverContext(config({ SLUICE_SERVER: 'http://evil:1' }), {}),
    /a token is not set/,
  );
  const named = serverContext(config({ SLUICE_SERVER: 'http://env:1', SLUICE_TOKEN: 'tok-env' }), {
    context: 'b',
  });
  assert.deepEqual([named.server, named.token], ['http://b:1', 'tok-b']);
  const flags = serverContext(config({ SLUICE_CONTEXT: 'b' }), {
    server: 'http://f:1',
    token: 't',
  });
  assert.deepEqual([flags.server, flags.token, flags.source.token], ['http://f:1', 't', '--token']);
  assert.throws(() => serverContext(config({}), { context: 'zz' }), /No context "zz"/);
});

test('a bad SLUICE_SERVER stops the commands that talk to a server, naming it', () => {
  const config = loadConfig({ SLUICE_SERVER: 'cp:8080', SLUICE_TOKEN: 'tok' }, false);
  assert.deepEqual(config.problems, [
    '--server (SLUICE_SERVER) must be an http(s) URL, got "cp:8080"',
  ]);
  assert.throws(
    () => serverContext(config, {}),
    (err) =>
      isSluiceError(err) &&
      err.code === 'SLUICE_CLI_CONFIG_INVALID' &&
      err.message.includes('(SLUICE_SERVER) must be an http(s) URL'),
  );
  assert.deepEqual(
    loadConfig({ SLUICE_SERVER: 'http://cp:8080/' }, false).server,
    'http://cp:8080',
  );
});
