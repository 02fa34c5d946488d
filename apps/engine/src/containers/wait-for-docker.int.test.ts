import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DockerClient } from '@sluice/docker';
import { ensureDockerEngine, makeTempDir } from '@sluice/testkit';
import { waitForDocker } from './wait-for-docker.js';

const temp = await makeTempDir('sluice-wait-docker-');
after(() => temp.cleanup());

test('the wait ends when the engine starts answering, with its version', async () => {
  const engine = await ensureDockerEngine();
  // The socket appears only after the first failed ping, as dind's does in a starting pod.
  const socket = join(temp.path, 'dind.sock');
  const docker = DockerClient.create({ host: `unix://${socket}` });
  let waits = 0;
  const { version, apiVersion } = await waitForDocker(docker, {
    timeoutMs: 30_000,
    intervalMs: 50,
    onWait: () => {
      if (waits++ === 0) void symlink(engine.socketPath, socket);
    },
  });
  assert.ok(waits >= 1, 'the first ping failed');
  assert.deepEqual(await DockerClient.create({ host: `unix://${engine.socketPath}` }).ping(), {
    version,
    apiVersion,
  });
});
