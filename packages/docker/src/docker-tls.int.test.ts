import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { isSluiceError } from '@sluice/errors';
import {
  ensureDockerEngine,
  ensureTestImages,
  makeTempDir,
  runCommand,
  startTlsDockerd,
  TEST_IMAGES,
} from '@sluice/testkit';
import type { TempDir, TlsDockerd } from '@sluice/testkit';
import { DockerClient } from './docker-client.js';
import type { DockerEndpoint } from './docker-endpoint.js';
import { createDindPki, engineTls } from './docker-tls.test-support.js';
import type { DindPki } from './docker-tls.test-support.js';

// A build's engine and its dind over mutual TLS, on a real second dockerd (`startTlsDockerd`)
// serving a certificate from the build's CA and accepting only clients of that CA. The engine
// side is the DockerClient as `sluice engine` builds it, with DOCKER_CERT_PATH-style files.

let build: DindPki;
let other: DindPki;
let dind: TlsDockerd | undefined;
let temp: TempDir | undefined;

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages({ only: 'busybox' });
  [build, other] = await Promise.all([createDindPki('build'), createDindPki('other')]);
  temp = await makeTempDir('sluice-docker-tls-');
  dind = await startTlsDockerd({
    caPem: build.ca.certPem,
    serverCertPem: build.server.certPem,
    serverKeyPem: build.server.keyPem,
    // 127.0.0.2 is not in the server certificate: dialling it is a host mismatch.
    addresses: ['127.0.0.1', '127.0.0.2'],
  });
  await dind.loadImages([TEST_IMAGES.shell]);
});

after(async () => {
  await dind?.stop();
  await temp?.cleanup();
});

function daemon(): TlsDockerd {
  assert.ok(dind !== undefined, 'the TLS dockerd did not start');
  return dind;
}

/** An endpoint whose certificate files sit in their own DOCKER_CERT_PATH directory. */
async function endpoint(
  name: string,
  trusted: DindPki,
  client: DindPki,
  host = daemon().host,
): Promise<DockerEndpoint> {
  assert.ok(temp !== undefined);
  return { host, tls: await engineTls(join(temp.path, name), trusted.ca, client.client) };
}

/** Asserts that ping fails with `code`, a message holding every fragment, a cause and a hint. */
async function assertPingRefused(
  target: DockerEndpoint,
  code: string,
  fragments: readonly string[],
): Promise<void> {
  const err: unknown = await DockerClient.create(target)
    .ping()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(isSluiceError(err), `expected a SluiceError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.equal(err.category, 'authentication');
  for (const fragment of fragments) assert.ok(err.message.includes(fragment), err.message);
  assert.ok(err.cause instanceof Error, 'the TLS error is kept as the cause');
  assert.ok(err.hint !== undefined, 'the error says what to do next');
}

test('ping and version succeed over mutual TLS with the build CA and client certificate', async () => {
  const docker = DockerClient.create(await endpoint('good', build, build));
  const { version, apiVersion } = await docker.ping();
  // The same daemon, asked over its plain unix socket.
  const direct = await runCommand('docker', [
    '-H',
    `unix://${daemon().socketPath}`,
    'version',
    '--format',
    '{{.Server.Version}} {{.Server.APIVersion}}',
  ]);
  assert.equal(direct.code, 0, direct.stderr);
  assert.equal(`${version} ${apiVersion}`, direct.stdout.trim());
});

test('the engine refuses a daemon whose certificate the build CA did not sign', async () => {
  await assertPingRefused(
    await endpoint('untrusted', other, build),
    'SLUICE_DOCKER_TLS_UNTRUSTED',
    [daemon().host, "is not signed by the build's CA"],
  );
});

test('the engine refuses a daemon whose certificate does not name the host it dials', async () => {
  const host = daemon().host.replace('127.0.0.1', '127.0.0.2');
  await assertPingRefused(
    await endpoint('mismatch', build, build, host),
    'SLUICE_DOCKER_TLS_HOST_MISMATCH',
    [host, 'does not name the host', '127.0.0.2'],
  );
});

test('dind refuses a client without a certificate', async () => {
  await assertPingRefused(
    { host: daemon().host, tls: { ca: build.ca.certPem } },
    'SLUICE_DOCKER_TLS_REJECTED',
    [`The Docker daemon at ${daemon().host} refused this client's certificate`, 'no client'],
  );
});

test('dind refuses a client certificate from another CA', async () => {
  await assertPingRefused(
    await endpoint('foreign-client', build, other),
    'SLUICE_DOCKER_TLS_REJECTED',
    [`The Docker daemon at ${daemon().host} refused this client's certificate`, 'cert.pem'],
  );
});

test('a step container runs on dind over mutual TLS', async () => {
  const docker = DockerClient.create(await endpoint('run', build, build));
  const lines: string[] = [];
  const labels = { 'io.sluice.test': `tls-${process.pid}` };
  const container = await docker.start(
    {
      name: `sluice-tls-${process.pid}`,
      image: TEST_IMAGES.shell,
      cmd: ['sh', '-c', 'echo "hello from $(hostname)"; echo oops >&2; exit 3'],
      env: [],
      binds: [],
      networkMode: 'none',
      labels,
    },
    (stream, line) => lines.push(`${stream}: ${line}`),
  );
  assert.equal(await container.wait(), 3);
  assert.deepEqual(lines.sort(), [
    `stderr: oops`,
    `stdout: hello from ${container.id.slice(0, 12)}`,
  ]);
  assert.deepEqual(
    (await docker.listContainers(labels)).map((c) => c.id),
    [container.id],
  );
  await docker.removeContainer(container.id);
  assert.deepEqual(await docker.listContainers(labels), []);
});

test('a BuildKit build runs on dind over mutual TLS, its certificates handed to the docker CLI', async () => {
  assert.ok(temp !== undefined);
  const docker = DockerClient.create(await endpoint('buildkit', build, build));
  const context = join(temp.path, 'buildkit-context');
  mkdirSync(context);
  writeFileSync(
    join(context, 'Dockerfile'),
    `FROM ${TEST_IMAGES.shell}\nRUN echo over-tls > /tls\n`,
  );
  const tar = execFileSync('tar', ['-c', '-C', context, 'Dockerfile']);
  const lines: string[] = [];
  const built = await docker.buildImageWithBuildKit(
    Readable.from([tar]),
    { tags: ['sluice-tls/buildkit:1'], platform: 'linux/amd64' },
    (line) => lines.push(line),
  );
  assert.ok(lines.some((line) => line.includes('naming to docker.io/sluice-tls/buildkit:1')));
  const direct = await runCommand('docker', [
    '-H',
    `unix://${daemon().socketPath}`,
    'image',
    'inspect',
    '--format',
    '{{.Id}}',
    'sluice-tls/buildkit:1',
  ]);
  assert.equal(direct.code, 0, direct.stderr);
  assert.equal(built.imageId, direct.stdout.trim());
});
