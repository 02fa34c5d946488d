/**
 * A warm-pool pod's engine (pool-handover.ts) as a real process beside the real Docker
 * engine: it listens once the daemon answers, refuses what is not its agent's (no key, a wrong
 * key, another path, a body of another shape), takes the first keyed build's variables into its
 * environment and goes on as that build's engine.
 * @module
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
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

test("a pool pod's engine takes only its agent's keyed handover, then runs as the build's engine", async () => {
  const { socketPath } = await ensureDockerEngine();
  const keyFile = join(temp.path, 'handover-key');
  writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });
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
    const url = `http://127.0.0.1:${port}/handover`;
    const post = (body: unknown, key?: string) =>
      fetch(url, {
        method: 'POST',
        headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }).then((res) => res.status);
    // Listening means the daemon answered: the pod's readiness probe is this port.
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/`).then(
          (res) => res.status,
          () => 0,
        ),
      (status) => status === 404,
      { what: `the engine to listen on ${port} (${err})` },
    );
    const build = { type: 'build', env: { SLUICE_BUILD_ID: 'b-1', SLUICE_ENGINE_TOKEN: 't-1' } };
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
