import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import { DockerClient } from '@sluice/docker';
import { isSluiceError } from '@sluice/errors';
import { makeTempDir } from '@sluice/testkit';
import { waitForDocker } from './wait-for-docker.js';

// The daemon that comes up while the engine waits runs in wait-for-docker.int.test.ts, on the
// real Docker engine; these are the waits that end without one.

const temp = await makeTempDir('sluice-wait-docker-');
after(() => temp.cleanup());

/** A socket where nothing listens: every ping fails as an unreachable engine. */
const nowhere = () => DockerClient.create({ host: `unix://${join(temp.path, 'absent.sock')}` });

test('an engine that never answers is pinged again until the time is up', async () => {
  // A first ping loads the Docker client's modules, which on a busy machine takes longer than
  // the pauses measured here: done before, so the wait's time is all pings and pauses.
  const docker = nowhere();
  await assert.rejects(docker.ping());
  const waits: number[] = [];
  await assert.rejects(
    waitForDocker(docker, {
      timeoutMs: 2_000,
      intervalMs: 10,
      onWait: (err, waited) => {
        assert.ok(isSluiceError(err) && err.category === 'unavailable', String(err));
        waits.push(waited);
      },
    }),
    (err) => isSluiceError(err) && err.code === 'SLUICE_DOCKER_UNAVAILABLE',
  );
  assert.ok(waits.length >= 2, `waited ${waits.length} times`);
  assert.deepEqual(
    waits,
    [...waits].sort((a, b) => a - b),
  );
});

test('an answer that is not from a Docker engine ends the wait at once', async () => {
  const server = createServer((_req, res) => res.writeHead(404).end('not here'));
  const socket = join(temp.path, 'not-docker.sock');
  server.listen(socket);
  await once(server, 'listening');
  try {
    let waits = 0;
    await assert.rejects(
      waitForDocker(DockerClient.create({ host: `unix://${socket}` }), {
        timeoutMs: 60_000,
        onWait: () => waits++,
      }),
      (err) => isSluiceError(err) && err.category === 'internal',
    );
    assert.equal(waits, 0);
  } finally {
    server.close();
  }
});

// Without the abort, the 30 s pause would outlast the test's timeout.
test('an abort ends the wait during a pause', { timeout: 10_000 }, async () => {
  const controller = new AbortController();
  await assert.rejects(
    waitForDocker(nowhere(), {
      timeoutMs: 120_000,
      intervalMs: 30_000,
      signal: controller.signal,
      onWait: () => controller.abort(),
    }),
    (err) => isSluiceError(err) && err.code === 'SLUICE_DOCKER_UNAVAILABLE',
  );
});
