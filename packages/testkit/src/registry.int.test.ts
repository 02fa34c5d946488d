import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCommand } from './run-command.js';
import { startRegistry } from './registry.js';
import { ensureDockerEngine } from './docker-engine.js';
import { ensureTestImages, TEST_IMAGES } from './test-images.js';

test('the test registry takes a push and serves the pushed tag back', async () => {
  await ensureDockerEngine();
  await ensureTestImages();
  const registry = await startRegistry();
  try {
    const tag = `${registry.address}/sluice/busybox:1`;
    assert.equal((await runCommand('docker', ['tag', TEST_IMAGES.shell, tag])).code, 0);
    const push = await runCommand('docker', ['push', tag]);
    assert.equal(push.code, 0, push.stderr);
    const tags = (await (
      await fetch(`http://${registry.address}/v2/sluice/busybox/tags/list`)
    ).json()) as { tags: string[] };
    assert.deepEqual(tags.tags, ['1']);
    await runCommand('docker', ['rmi', tag]);
  } finally {
    await registry.stop();
  }
});

test('a registry started with auth asks for that login and accepts it', async () => {
  const registry = await startRegistry({ auth: { username: 'ci', password: 's3cret' } });
  try {
    const url = `http://${registry.address}/v2/`;
    assert.equal((await fetch(url)).status, 401);
    const basic = (user: string, pass: string) => ({
      headers: { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` },
    });
    assert.equal((await fetch(url, basic('ci', 's3cret'))).status, 200);
    assert.equal((await fetch(url, basic('ci', 'wrong'))).status, 401);
  } finally {
    await registry.stop();
  }
});
