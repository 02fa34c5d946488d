// A warm-pool pod's build on the spare sandbox its daemon warm-up left (daemon-warm-up.ts): the
// steps run in the spare's network namespace instead of one the build makes, and the build
// removes the spare at its end; a spare that no longer runs is passed over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { silentLogger } from '@sluice/log';
import { runCommand } from '@sluice/testkit';
import { useBuildHarness, SHELL_IMAGE, stepLines } from './build-harness.test-support.js';
import { LABELS } from '../base/resource-names.js';
import { DEFAULT_SANDBOX_IMAGE, startSandbox } from '../containers/build-sandbox.js';
import { removeSpare, spareRuns, WARM_UP_BUILD } from '../containers/daemon-warm-up.js';
import type { SpareSandbox } from '../containers/daemon-warm-up.js';

const harness = useBuildHarness();

/** A spare as the warm-up makes it, under a name of this test's (files run side by side). */
async function makeSpare(): Promise<SpareSandbox> {
  const { docker } = harness();
  const name = `sluice-spare-it-${randomBytes(4).toString('hex')}`;
  const labels = { [LABELS.build]: WARM_UP_BUILD };
  await docker.createNetwork(name, labels);
  const sandboxId = await startSandbox(docker, {
    containerName: name,
    networkName: name,
    image: DEFAULT_SANDBOX_IMAGE,
    labels,
    log: silentLogger,
  });
  assert.ok(sandboxId !== undefined, 'the spare sandbox started');
  return { networkName: name, sandboxId };
}

async function exists(kind: 'container' | 'network', name: string): Promise<boolean> {
  return (await runCommand('docker', [kind, 'inspect', name])).code === 0;
}

const HOSTNAME = `
  first:
    image: ${SHELL_IMAGE}
    commands: [cat /etc/hostname]
  second:
    image: ${SHELL_IMAGE}
    commands: [cat /etc/hostname]
`;

test("the steps run in a spare sandbox's namespace, and the build removes it at its end", async () => {
  const spare = await makeSpare();
  try {
    const build = await harness().runSteps(HOSTNAME, { spareSandbox: spare });
    assert.equal(build.summary.result, 'success', build.summary.reason);
    // A container that joins another's network namespace has that container's host name.
    const host = spare.sandboxId.slice(0, 12);
    assert.deepEqual(stepLines(build.events, 'first', 'stdout'), [host]);
    assert.deepEqual(stepLines(build.events, 'second', 'stdout'), [host]);
    assert.equal(await exists('container', spare.sandboxId), false, 'the spare sandbox is gone');
    assert.equal(await exists('network', spare.networkName), false, "the spare's network is gone");
  } finally {
    await removeSpare(harness().docker, spare);
  }
});

test('a spare whose sandbox stopped is passed over: the build makes its own, and removes both', async () => {
  const spare = await makeSpare();
  try {
    await runCommand('docker', ['kill', spare.sandboxId]);
    assert.equal(await spareRuns(harness().docker, spare), false);
    const build = await harness().runSteps(HOSTNAME, { spareSandbox: spare });
    assert.equal(build.summary.result, 'success', build.summary.reason);
    const [host] = stepLines(build.events, 'first', 'stdout');
    assert.ok(host !== undefined && host !== spare.sandboxId.slice(0, 12), `host ${host}`);
    assert.equal(await exists('container', spare.sandboxId), false);
    assert.equal(await exists('network', spare.networkName), false);
  } finally {
    await removeSpare(harness().docker, spare);
  }
});
