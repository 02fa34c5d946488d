/**
 * A warm-pool pod's engine (pool-handover.ts) as a real process beside the real Docker
 * engine: it listens once the daemon answers, over TLS with the pod's certificate, refuses
 * what is not its agent's (plain HTTP, no key, a wrong key, another path, a body of another
 * shape), takes the first keyed build's variables into its environment and goes on as that
 * build's engine. A client that trusts another pod's CA does not get through the handshake.
 * @module
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createCertificateAuthority, issueServerCertificate } from '@sluice/pki';
import { ensureDockerEngine, makeTempDir, waitFor } from '@sluice/testkit';

const temp = await makeTempDir('sluice-pool-handover-');
after(() => temp.cleanup());
const KEY = 'a'.repeat(64);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A pod's handover TLS as the agent makes it: a certificate for the pod's name, its own CA. */
async function podCertificate(pod: string) {
  const ca = await createCertificateAuthority({ commonName: `ca of ${pod}`, validityDays: 1 });
  const server = await issueServerCertificate(ca, {
    commonName: pod,
    dnsNames: [pod],
    validityDays: 1,
  });
  return { ca: ca.certPem, ...server };
}

/** One request's status: over TLS trusting `ca` for `pod`, or plain HTTP; 0 when it fails. */
function send(
  port: number,
  options: { path: string; method?: string; key?: string; body?: string },
  tls?: { ca: string; pod: string },
): Promise<number> {
  const headers = options.key === undefined ? {} : { authorization: `Bearer ${options.key}` };
  const common = {
    host: '127.0.0.1',
    port,
    path: options.path,
    method: options.method ?? 'GET',
    headers,
  };
  return new Promise((resolve) => {
    const done = (res: { statusCode?: number; resume(): void }) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    };
    const req =
      tls === undefined
        ? httpRequest(common, done)
        : request({ ...common, ca: tls.ca, servername: tls.pod }, done);
    req.on('error', () => resolve(0));
    req.end(options.body);
  });
}

test("a pool pod's engine takes only its agent's keyed handover over its TLS, then runs as the build's engine", async () => {
  const { socketPath } = await ensureDockerEngine();
  const keyFile = join(temp.path, 'handover-key');
  writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });
  const pod = 'warm-pool-abc';
  const own = await podCertificate(pod);
  const other = await podCertificate('warm-pool-other');
  writeFileSync(join(temp.path, 'handover.crt'), own.certPem);
  writeFileSync(join(temp.path, 'handover.key'), own.keyPem, { mode: 0o600 });
  const port = await freePort();
  const module = new URL('./pool-handover.js', import.meta.url).href;
  const script = [
    `const m = await import(${JSON.stringify(module)});`,
    'await m.awaitPoolHandover(m.poolEngineSettings());',
    'const { SLUICE_BUILD_ID: build, SLUICE_ENGINE_TOKEN: token } = process.env;',
    'process.stdout.write(JSON.stringify({ build, token }), () => process.exit(0));',
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      ...process.env,
      SLUICE_ENGINE_POOL_PORT: String(port),
      SLUICE_ENGINE_POOL_KEY_FILE: keyFile,
      SLUICE_ENGINE_POOL_TLS_CERT_FILE: join(temp.path, 'handover.crt'),
      SLUICE_ENGINE_POOL_TLS_KEY_FILE: join(temp.path, 'handover.key'),
      DOCKER_HOST: socketPath.startsWith('/') ? `unix://${socketPath}` : socketPath,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const trusted = { ca: own.ca, pod };
    const post = (body: unknown, key?: string, tls: { ca: string; pod: string } = trusted) =>
      send(
        port,
        {
          path: '/handover',
          method: 'POST',
          body: typeof body === 'string' ? body : JSON.stringify(body),
          ...(key === undefined ? {} : { key }),
        },
        tls,
      );
    // Listening means the daemon answered: the pod's readiness probe is this port.
    await waitFor(
      () => send(port, { path: '/' }, trusted),
      (status) => status === 404,
      { what: `the engine to listen on ${port} (${err})` },
    );
    const build = { type: 'build', env: { SLUICE_BUILD_ID: 'b-1', SLUICE_ENGINE_TOKEN: 't-1' } };
    // Nothing gets through but TLS with the pod's certificate: not plain HTTP, not a client
    // that trusts another pod's CA, not one that expects another pod's name.
    assert.equal(await post(build, KEY, { ca: other.ca, pod }), 0, "another pod's CA");
    assert.equal(await post(build, KEY, { ca: own.ca, pod: 'warm-pool-x' }), 0, 'another name');
    assert.equal(
      await send(port, {
        path: '/handover',
        method: 'POST',
        key: KEY,
        body: JSON.stringify(build),
      }),
      0,
      'plain HTTP',
    );
    assert.equal(await post(build), 401, 'no key');
    assert.equal(await post(build, 'b'.repeat(64)), 401, 'a wrong key');
    assert.equal(await post('{not json', KEY), 400);
    assert.equal(await post({ type: 'other', env: {} }, KEY), 400);
    const nul = { type: 'build', env: { SLUICE_BUILD_ID: 'b-1\u0000x' } };
    assert.equal(await post(nul, KEY), 400, 'a NUL, which the environment would cut');
    assert.equal(await post({ type: 'build', env: { 'A=B': 'x' } }, KEY), 400, 'a name with =');
    assert.equal(await post(build, KEY), 204);
    assert.equal(await exited, 0, err);
    assert.deepEqual(JSON.parse(out), { build: 'b-1', token: 't-1' });
  } finally {
    child.kill();
  }
});
