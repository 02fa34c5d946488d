import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toDockerodeOptions } from './docker-endpoint.js';

test('unix sockets, tcp and https addresses become dockerode options', () => {
  assert.deepEqual(toDockerodeOptions({ host: 'unix:///var/run/docker.sock' }), {
    socketPath: '/var/run/docker.sock',
  });
  assert.deepEqual(toDockerodeOptions({ host: 'tcp://10.0.0.5:1300' }), {
    protocol: 'http',
    host: '10.0.0.5',
    port: 1300,
  });
  assert.deepEqual(toDockerodeOptions({ host: 'tcp://dind' }), {
    protocol: 'http',
    host: 'dind',
    port: 2375,
  });
  const tls = { ca: 'CA', cert: 'CERT', key: 'KEY' };
  assert.deepEqual(toDockerodeOptions({ host: 'tcp://dind:1300', tls }), {
    protocol: 'https',
    host: 'dind',
    port: 1300,
    ...tls,
  });
});

test('anything else is an input error naming the address', () => {
  assert.throws(
    () => toDockerodeOptions({ host: 'ftp://x' }),
    /Docker host "ftp:\/\/x" is not a unix:\/\/ or tcp:\/\/ address/,
  );
});
