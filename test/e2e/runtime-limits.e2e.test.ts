/**
 * The local runtime (`sluice up`) under a runtime spec with `workflowLimits`, `userEnvVars` and
 * `userVolumeMounts`: a step sees the variable and the file under the mount, and a step that
 * sleeps without a word is stopped by TIME_INACTIVE_UNTIL_TERMINATION, its container gone.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import { ensureDockerEngine, ensureTestImages, makeTempDir, waitFor } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { seededDataDir, startSluice, waitForUp } from './cli-harness.js';
import type { RunningCli } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';

const PROJECT = `limits${process.pid}`;
const SHOW_YAML = `version: "1.0"
steps:
  show:
    image: sluice/busybox:1
    commands:
      - echo team is $TEAM
      - cat /shared/hello.txt
`;
const QUIET_YAML = `version: "1.0"
steps:
  quiet:
    image: sluice/busybox:1
    commands:
      - echo going quiet
      - sleep 600
`;

let cli: RunningCli | undefined;
const temps: TempDir[] = [];

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
});

after(async () => {
  if (cli !== undefined && cli.child.exitCode === null) cli.child.kill('SIGKILL');
  await cli?.done;
  for (const temp of temps) await temp.cleanup();
  for (const name of ['show', 'quiet'])
    spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-${name}`]);
});

async function tempDir(prefix: string): Promise<string> {
  const temp = await makeTempDir(prefix);
  temps.push(temp);
  return temp.path;
}

function finished(admin: SluiceClient, buildId: string): Promise<Build> {
  return waitFor(
    () => admin.call('getBuild', { params: { buildId } }),
    (b) => FINISHED_STATUSES.includes(b.status),
    { what: `build ${buildId} to finish` },
  );
}

function containersOf(buildId: string): string {
  return execFileSync('docker', ['ps', '-aq', '--filter', `label=io.sluice.build-id=${buildId}`], {
    encoding: 'utf8',
  }).trim();
}

test('a local runtime gives steps its userEnvVars and userVolumeMounts, and stops a silent step at TIME_INACTIVE_UNTIL_TERMINATION leaving no container', async () => {
  const shared = await tempDir('sluice-user-volume-');
  writeFileSync(join(shared, 'hello.txt'), 'hello from the user volume\n');
  // A limits pass every 200 ms, so the 3 s limit is enforced within a fraction of a second.
  cli = startSluice(
    ['up', '--port', '0', '--data-dir', await seededDataDir(await tempDir('sluice-limits-e2e-'))],
    {
      env: { SLUICE_LIMITS_INTERVAL_MS: '200' },
    },
  );
  const { url, token } = await waitForUp(cli);
  const admin = createClient({ baseUrl: url, token });
  const patch = {
    runtimeScheduler: {
      userEnvVars: [{ name: 'TEAM', value: 'platform' }],
    },
    dockerDaemonScheduler: {
      userVolumes: { shared: { hostPath: { path: shared } } },
      userVolumeMounts: { shared: { mountPath: '/shared', readOnly: true } },
    },
  };
  await admin.call('patchRuntimeEnvironment', { params: { name: 'local' }, body: { patch } });
  const ids = await createPipelines(admin, PROJECT, { show: SHOW_YAML, quiet: QUIET_YAML });

  const show = await admin.call('createBuild', {
    params: { pipelineId: ids.show ?? '' },
    body: {},
  });
  const shown = await finished(admin, show.id);
  assert.equal(shown.status, 'success', JSON.stringify(shown));
  const text = await (await admin.raw('buildLog', { params: { buildId: show.id } })).text();
  for (const line of ['[show] team is platform', '[show] hello from the user volume'])
    assert.ok(text.split('\n').includes(line), `"${line}" missing in:\n${text}`);

  // The limit only for the quiet build: on a loaded machine the first build's engine can be
  // silent for 3 s before its step prints.
  await admin.call('patchRuntimeEnvironment', {
    params: { name: 'local' },
    body: {
      patch: { runtimeScheduler: { workflowLimits: { TIME_INACTIVE_UNTIL_TERMINATION: 3 } } },
    },
  });
  const quiet = await admin.call('createBuild', {
    params: { pipelineId: ids.quiet ?? '' },
    body: {},
  });
  await waitFor(
    () => admin.call('getBuild', { params: { buildId: quiet.id } }),
    (b) => b.steps[0]?.status === 'running',
    { what: 'the quiet step to run' },
  );
  assert.notEqual(containersOf(quiet.id), '', 'the quiet step has no container while it runs');
  const stopped = await finished(admin, quiet.id);
  assert.equal(stopped.status, 'terminated', JSON.stringify(stopped));
  assert.equal(stopped.reason, 'stopped: no log output for 3 s (TIME_INACTIVE_UNTIL_TERMINATION)');
  assert.equal(stopped.steps[0]?.status, 'terminated');
  await waitFor(
    () => containersOf(quiet.id),
    (left) => left === '',
    { what: "the quiet build's containers to go" },
  );

  cli.child.kill('SIGTERM');
  const { code } = await cli.done;
  assert.equal(code, 0);
});
