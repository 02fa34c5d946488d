import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import {
  useBuildHarness,
  SHELL_IMAGE,
  stepsPipeline,
  stepSummary,
  volumeExists,
} from './build-harness.test-support.js';
import { LABELS, networkNameFor, volumeNameFor } from '../base/resource-names.js';
import type { RecordedBuild } from './build-harness.test-support.js';

const harness = useBuildHarness();

const SLEEPER = stepsPipeline(`
  prepare:
    image: ${SHELL_IMAGE}
    commands: [echo ready > /codefresh/volume/ready.txt]
  sleeper:
    image: ${SHELL_IMAGE}
    commands:
      - echo going-to-sleep
      - sleep 600
  later:
    image: ${SHELL_IMAGE}
    commands: [echo must-not-run]
`);

/** Runs SLEEPER and aborts `afterMs` after the sleeper step starts; times the end of the build. */
async function cancelSleeper(afterMs: number): Promise<{ build: RecordedBuild; stopMs: number }> {
  const controller = new AbortController();
  let abortedAt = 0;
  const build = await harness().run(SLEEPER, {
    signal: controller.signal,
    stopGraceSeconds: 1,
    onEvent: (event) => {
      if (event.type !== 'step-started' || event.step !== 'sleeper') return;
      void delay(afterMs).then(() => {
        abortedAt = Date.now();
        controller.abort();
      });
    },
  });
  assert.ok(abortedAt > 0, 'the abort fired before the build ended');
  return { build, stopMs: Date.now() - abortedAt };
}

async function assertOnlyVolumeLeft(build: RecordedBuild): Promise<void> {
  const labels = { [LABELS.build]: build.buildId };
  assert.deepEqual(await harness().docker.listContainers(labels), []);
  assert.deepEqual(await harness().docker.listNetworks(labels), []);
  const networks = await harness().docker.listNetworks({});
  assert.ok(!networks.includes(networkNameFor(build.buildId)), 'the build network is gone');
  assert.ok(await volumeExists(volumeNameFor(build.volumeKey)), 'the volume stays');
}

test('cancelling a running step ends the build terminated, promptly, leaving only the volume', async () => {
  const { build, stopMs } = await cancelSleeper(500);

  assert.equal(build.summary.result, 'terminated');
  assert.ok(build.summary.reason, 'a terminated build says why');
  // SIGTERM is ignored by sh as PID 1, so this is the 1 s grace plus Docker's overhead.
  assert.ok(stopMs < 10_000, `the build ended ${stopMs} ms after the abort`);
  assert.equal(stepSummary(build, 'prepare').result, 'success');
  assert.equal(stepSummary(build, 'sleeper').result, 'terminated');
  assert.equal(stepSummary(build, 'later').result, 'skipped');
  assert.ok(!build.events.some((e) => e.type === 'step-started' && e.step === 'later'));
  assert.ok(
    build.events.some(
      (e) => e.type === 'step-log' && e.step === 'sleeper' && e.line === 'going-to-sleep',
    ),
  );
  const last = build.events.at(-1);
  assert.equal(last?.type === 'build-finished' && last.result, 'terminated');
  await assertOnlyVolumeLeft(build);
});

test('a cancel that lands while the step container is being created still stops it', async () => {
  // The abort falls somewhere in image check, create, attach and start, whichever is running.
  for (const afterMs of [0, 25, 75, 150]) {
    const { build, stopMs } = await cancelSleeper(afterMs);
    assert.equal(build.summary.result, 'terminated', `abort after ${afterMs} ms`);
    assert.equal(stepSummary(build, 'sleeper').result, 'terminated');
    assert.ok(stopMs < 10_000, `abort after ${afterMs} ms: ended ${stopMs} ms later`);
    await assertOnlyVolumeLeft(build);
  }
});
