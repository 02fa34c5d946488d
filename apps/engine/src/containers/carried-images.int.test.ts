// The images the engine carries (carried-images.ts), loaded onto the live Docker engine: what a
// build's dind on a new volume in an air-gapped cluster gets before its first step, and what a
// warm-pool pod's engine does to its new daemon before its pod is Ready (daemon-warm-up.ts).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DockerClient } from '@sluice/docker';
import { memoryLogger } from '@sluice/log';
import { ensureDockerEngine, ensureTestImages, makeTempDir, runCommand } from '@sluice/testkit';
import { carriedImages, loadCarriedImages } from './carried-images.js';
import {
  removeSpare,
  SPARE_NAME,
  spareRuns,
  WARM_UP_BUILD,
  warmUpDaemon,
} from './daemon-warm-up.js';
import { ensureImagePresent } from './container-run.js';
import { createStepRuntime } from '../steps/step-runtime.test-support.js';

const temp = await makeTempDir('sluice-carried-images-');
/** An image of this test alone: busybox under a name no other file uses. */
const IMAGE = `sluice-test/carried:${process.pid}`;
let docker: DockerClient;

async function dockerCli(...args: string[]): Promise<string> {
  const result = await runCommand('docker', args);
  assert.equal(result.code, 0, `docker ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

before(async () => {
  const engine = await ensureDockerEngine();
  await ensureTestImages();
  docker = DockerClient.create({ host: `unix://${engine.socketPath}` });
  await dockerCli('tag', 'sluice/busybox:1', IMAGE);
  await dockerCli('save', '-o', join(temp.path, 'carried.tar'), IMAGE);
  // Untagged, the image is gone for the daemon as on a new volume (busybox:1 keeps the layers).
  await dockerCli('rmi', IMAGE);
});

after(async () => {
  await runCommand('docker', ['rmi', '-f', IMAGE]);
  await temp.cleanup();
});

test('an image the daemon lacks is loaded from the archive the engine carries, once', async () => {
  const index = { images: { [IMAGE]: 'carried.tar', 'sluice-test/escape:1': '../../etc/x.tar' } };
  await writeFile(join(temp.path, 'index.json'), JSON.stringify(index));
  // Only a file name in the directory is read: the index cannot point elsewhere.
  assert.deepEqual([...(await carriedImages(temp.path)).keys()], [IMAGE]);
  assert.equal(await docker.imageExists(IMAGE), false);
  const { logger, lines } = memoryLogger('info');
  assert.deepEqual(await loadCarriedImages(docker, temp.path, logger), [IMAGE]);
  assert.equal(await docker.imageExists(IMAGE), true);
  assert.ok(
    lines.some((line) => line.includes('loaded a carried image')),
    lines.join('\n'),
  );
  // A warm volume has it: nothing is loaded again.
  assert.deepEqual(await loadCarriedImages(docker, temp.path, logger), []);
});

test('an on-demand image is left for the step that needs it, then loaded instead of pulled', async () => {
  const index = { images: {}, onDemand: { [IMAGE]: 'carried.tar' } };
  await writeFile(join(temp.path, 'index.json'), JSON.stringify(index));
  await runCommand('docker', ['rmi', '-f', IMAGE]);
  const { logger } = memoryLogger('info');
  assert.deepEqual(await loadCarriedImages(docker, temp.path, logger), [], 'not before a build');
  assert.equal(await docker.imageExists(IMAGE), false);
  const fx = await createStepRuntime({ sandbox: false });
  try {
    fx.runtime.carriedOnDemand = await carriedImages(temp.path, 'onDemand');
    // No registry has this name: only the engine's copy can give it.
    await ensureImagePresent(IMAGE, 'clone', fx.runtime);
    assert.equal(await docker.imageExists(IMAGE), true);
    assert.deepEqual(fx.lines('clone', 'system'), [
      `Loading image ${IMAGE} from the engine's own copy`,
    ]);
  } finally {
    await fx.close();
  }
});

test('no index, or a damaged archive, loads nothing and fails no build', async () => {
  const { logger, lines } = memoryLogger('info');
  assert.deepEqual(await loadCarriedImages(docker, join(temp.path, 'none'), logger), []);
  assert.deepEqual(await loadCarriedImages(docker, undefined, logger), []);
  const damaged = await makeTempDir('sluice-carried-damaged-');
  try {
    await writeFile(join(damaged.path, 'bad.tar'), 'not a tar archive');
    const index = { images: { 'sluice-test/damaged:1': 'bad.tar' } };
    await writeFile(join(damaged.path, 'index.json'), JSON.stringify(index));
    assert.deepEqual(await loadCarriedImages(docker, damaged.path, logger), []);
    assert.ok(
      lines.some((line) => line.includes('could not load the images the engine carries')),
      lines.join('\n'),
    );
  } finally {
    await damaged.cleanup();
  }
});

test("a pool pod's daemon warm-up loads the carried images and leaves one running sandbox on its network, which the next warm-up replaces", async () => {
  const index = { images: { [IMAGE]: 'carried.tar' } };
  await writeFile(join(temp.path, 'index.json'), JSON.stringify(index));
  await runCommand('docker', ['rmi', '-f', IMAGE]);
  const { logger, lines } = memoryLogger('info');
  // By name: other files' builds (a spare of their own) run on this daemon meanwhile.
  const label = `label=io.sluice.build-id=${WARM_UP_BUILD}`;
  const named = `name=${SPARE_NAME}`;
  const running = async () =>
    (await dockerCli('ps', '-q', '--no-trunc', '--filter', label, '--filter', named))
      .trim()
      .split('\n');
  const networks = async () =>
    (
      await dockerCli(
        'network',
        'ls',
        '--format',
        '{{.Name}}',
        '--filter',
        label,
        '--filter',
        named,
      )
    ).trim();
  const first = await warmUpDaemon(docker, { carriedImagesDir: temp.path, log: logger });
  try {
    assert.equal(await docker.imageExists(IMAGE), true, 'the carried image is loaded');
    assert.ok(first !== undefined, `a spare sandbox: ${lines.join('\n')}`);
    assert.equal(first.networkName, SPARE_NAME);
    assert.deepEqual(await running(), [first.sandboxId]);
    assert.equal(await spareRuns(docker, first), true);
    assert.equal(await networks(), SPARE_NAME);
    // A later pod on the same volume: the spare the first left (no build took it) is replaced.
    const second = await warmUpDaemon(docker, { carriedImagesDir: temp.path, log: logger });
    assert.ok(second !== undefined && second.sandboxId !== first.sandboxId);
    assert.deepEqual(await running(), [second.sandboxId]);
    assert.equal(await spareRuns(docker, first), false);
    assert.equal(await networks(), SPARE_NAME, 'one network');
  } finally {
    await removeSpare(docker, { networkName: SPARE_NAME, sandboxId: SPARE_NAME });
  }
  assert.equal(
    (await dockerCli('ps', '-aq', '--filter', label, '--filter', named)).trim(),
    '',
    'no container left',
  );
  assert.equal(await networks(), '', 'no network left');
  assert.ok(!lines.some((line) => line.includes('did not run a container')), lines.join('\n'));
});

test('a daemon that refuses the warm-up fails nothing: the build does the same itself', async () => {
  const { logger, lines } = memoryLogger('info');
  const gone = DockerClient.create({ host: `unix://${join(temp.path, 'no-daemon.sock')}` });
  await warmUpDaemon(gone, { carriedImagesDir: temp.path, log: logger });
  assert.ok(
    lines.some((line) => line.includes('could not load the images the engine carries')),
    lines.join('\n'),
  );
});
