import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DockerClient } from '@sluice/docker';
import { isSluiceError } from '@sluice/errors';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
} from '@sluice/pki';
import { makeTempDir, runCommand, startTlsDockerd, writeDockerCertPath } from '@sluice/testkit';
import type { TempDir, TlsDockerd } from '@sluice/testkit';
import { dockerEndpoint, loadConfig } from './config.js';

// `sluice engine` finds its dind the way the engine pod sets it up: DOCKER_HOST, DOCKER_TLS_VERIFY
// and DOCKER_CERT_PATH, parsed by loadConfig and turned into a DockerClient by dockerEndpoint,
// here against a real dockerd with --tlsverify and certificates from the internal CA.

let dind: TlsDockerd | undefined;
let temp: TempDir | undefined;
let certPath: string;

before(async () => {
  const ca = await createCertificateAuthority({ commonName: 'engine CA', validityDays: 30 });
  const server = await issueServerCertificate(ca, {
    commonName: 'dind',
    ipAddresses: ['127.0.0.1'],
    validityDays: 7,
  });
  const client = await issueClientCertificate(ca, { commonName: 'engine', validityDays: 1 });
  temp = await makeTempDir('sluice-cli-docker-tls-');
  certPath = await writeDockerCertPath(join(temp.path, 'certs'), {
    caPem: ca.certPem,
    certPem: client.certPem,
    keyPem: client.keyPem,
  });
  dind = await startTlsDockerd({
    caPem: ca.certPem,
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
  });
});

after(async () => {
  await dind?.stop();
  await temp?.cleanup();
});

/** The engine pod's Docker variables, pointing at the test dind. */
function engineEnv(): Record<string, string> {
  assert.ok(dind !== undefined, 'the TLS dockerd did not start');
  return { DOCKER_HOST: dind.host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certPath };
}

test('the engine reaches dind over mutual TLS from DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH', async () => {
  const env = engineEnv();
  const docker = DockerClient.create(dockerEndpoint(loadConfig(env, false), undefined));
  const { version, apiVersion } = await docker.ping();
  // The docker CLI, given the same three variables, sees the same daemon.
  assert.ok(temp !== undefined);
  const cli = await runCommand('docker', ['version', '--format', '{{.Server.APIVersion}}'], {
    env: { ...env, PATH: '/usr/local/bin:/usr/bin:/bin', HOME: temp.path },
  });
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(apiVersion, cli.stdout.trim());
  assert.match(version, /^\d+\.\d+/);
});

test('without DOCKER_TLS_VERIFY the engine is told that dind requires TLS', async () => {
  const { DOCKER_HOST, DOCKER_CERT_PATH } = engineEnv();
  const config = loadConfig({ DOCKER_HOST, DOCKER_CERT_PATH, DOCKER_TLS_VERIFY: '0' }, false);
  await assert.rejects(DockerClient.create(dockerEndpoint(config, undefined)).ping(), (err) => {
    assert.ok(isSluiceError(err), String(err));
    assert.equal(err.code, 'SLUICE_DOCKER_TLS_REQUIRED');
    assert.equal(err.category, 'input');
    assert.ok(err.message.includes(`${DOCKER_HOST} requires TLS`), err.message);
    assert.match(err.hint ?? '', /DOCKER_TLS_VERIFY=1/);
    return true;
  });
});
