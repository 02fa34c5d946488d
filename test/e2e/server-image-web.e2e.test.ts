/**
 * The server image serves the web UI: images/engine/bundle.sh, which makes the CLI bundle that
 * sluice/engine:1 carries (images/build-cluster-images.sh, images/engine/Dockerfile; the server
 * chart runs `sluice.mjs server` from it), puts the built UI in the bundle's `web/`, and
 * `sluice server` run from that bundle, with the repository out of reach, answers `/` and the
 * UI's bundles from there.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, runCommand, waitFor } from '@sluice/testkit';
import { REPO_ROOT } from './cli-harness.js';

const WEB_DIST = `${REPO_ROOT}apps/web/dist`;

test('the bundled sluice server of the server image serves the web UI at /', async () => {
  const temp = await makeTempDir('sluice-server-image-web-');
  try {
    const bundle = join(temp.path, 'bundle');
    const made = await runCommand('bash', [`${REPO_ROOT}images/engine/bundle.sh`, bundle], {
      timeoutMs: 300_000,
    });
    assert.equal(made.code, 0, `bundle.sh failed (run npm run build first): ${made.stderr}`);
    const index = await readFile(join(bundle, 'web', 'index.html'), 'utf8');
    assert.equal(index, await readFile(join(WEB_DIST, 'index.html'), 'utf8'));
    assert.deepEqual(
      (await readdir(join(bundle, 'web', 'assets'))).sort(),
      (await readdir(join(WEB_DIST, 'assets'))).sort(),
    );

    // As in the image: the bundle alone under /usr/local/lib/sluice, no repository beside it.
    const lib = join(temp.path, 'usr', 'local', 'lib', 'sluice');
    await cp(bundle, lib, { recursive: true });
    const child = spawn(process.execPath, [join(lib, 'sluice.mjs'), 'server'], {
      cwd: temp.path,
      env: {
        PATH: process.env.PATH,
        SLUICE_HOST: '127.0.0.1',
        SLUICE_PORT: '0',
        SLUICE_DATA_DIR: join(temp.path, 'data'),
        SLUICE_BOOTSTRAP_TOKEN: 'slu_u_server-image-web-token-0123456789',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    try {
      const url = await waitFor(
        () => /listening on (http:\/\/\S+)/.exec(output)?.[1],
        (u) => u !== undefined,
        { what: 'the bundled server to listen', timeoutMs: 60_000, intervalMs: 100 },
      );
      const page = await fetch(`${url}/builds`);
      assert.equal(page.status, 200, output);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(await page.text(), index);
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)?.[1];
      assert.ok(script !== undefined, 'index.html names no script bundle');
      const asset = await fetch(`${url}${script}`);
      assert.equal(asset.status, 200);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  } finally {
    await temp.cleanup();
  }
});
