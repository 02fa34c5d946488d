/**
 * Approvals under the control plane, as a user meets them: `sluice up` (control plane on PGlite,
 * the local runtime and its agent) runs a pipeline with a `pending-approval` step; the build
 * waits `pending-approval` with the step recorded, someone approves it through the API and the
 * build goes on to `success`; a denied one ends `failure`, and who answered is kept.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createClient, FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import { ensureDockerEngine, ensureTestImages, makeTempDir, waitFor } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { seededDataDir, startSluice, waitForUp } from './cli-harness.js';
import type { RunningCli } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';

const PROJECT = `appr${process.pid}`;
const GATED_YAML = `version: "1.0"
steps:
  before:
    image: sluice/busybox:1
    commands:
      - echo before the gate
  gate:
    type: pending-approval
    title: Ship it?
    timeout:
      duration: 30
      timeUnit: minutes
      finalState: denied
  after:
    image: sluice/busybox:1
    commands:
      - echo after the gate
`;

let cli: RunningCli | undefined;
let temp: TempDir | undefined;
let admin: SluiceClient;
let pipelineId: string;

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
  temp = await makeTempDir('sluice-approvals-e2e-');
  cli = startSluice(['up', '--port', '0', '--data-dir', await seededDataDir(temp.path)]);
  const { url, token } = await waitForUp(cli);
  admin = createClient({ baseUrl: url, token });
  const ids = await createPipelines(admin, PROJECT, { gated: GATED_YAML });
  pipelineId = ids.gated ?? '';
});

after(async () => {
  if (cli !== undefined) {
    if (cli.child.exitCode === null) cli.child.kill('SIGTERM');
    await cli.done;
  }
  await temp?.cleanup();
  spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-gated`]);
});

function waitForBuild(buildId: string, done: (b: Build) => boolean, what: string) {
  return waitFor(() => admin.call('getBuild', { params: { buildId } }), done, { what });
}

function states(build: Build): [string, string][] {
  return build.steps.map((s) => [s.name, s.status]);
}

/** A new build of the gated pipeline, once it waits for approval. */
async function waitingBuild(): Promise<Build> {
  const created = await admin.call('createBuild', { params: { pipelineId }, body: {} });
  const waiting = await waitForBuild(
    created.id,
    (b) => b.status === 'pending-approval' || FINISHED_STATUSES.includes(b.status),
    'the build to wait for approval',
  );
  assert.equal(waiting.status, 'pending-approval', JSON.stringify(waiting));
  assert.deepEqual(states(waiting), [
    ['before', 'success'],
    ['gate', 'pending-approval'],
    ['after', 'pending'],
  ]);
  return waiting;
}

test('a build waits for approval, is approved through the API and succeeds', async () => {
  const waiting = await waitingBuild();
  const approved = await admin.call('approveBuild', {
    params: { buildId: waiting.id },
    body: { step: 'gate' },
  });
  assert.notEqual(approved.status, 'pending-approval');
  const done = await waitForBuild(
    waiting.id,
    (b) => FINISHED_STATUSES.includes(b.status),
    'the approved build to finish',
  );
  assert.equal(done.status, 'success', JSON.stringify(done));
  assert.deepEqual(states(done), [
    ['before', 'success'],
    ['gate', 'success'],
    ['after', 'success'],
  ]);
  const gate = done.steps.find((s) => s.name === 'gate');
  assert.equal(gate?.answeredBy, 'admin');
  assert.ok(gate?.startedAt && gate.finishedAt, JSON.stringify(gate));
  const log = await (await admin.raw('buildLog', { params: { buildId: done.id } })).text();
  assert.ok(log.includes('[after] after the gate'), log);
});

test('a denied build fails, and the steps after the gate do not run', async () => {
  const waiting = await waitingBuild();
  await admin.call('denyBuild', { params: { buildId: waiting.id }, body: {} });
  const done = await waitForBuild(
    waiting.id,
    (b) => FINISHED_STATUSES.includes(b.status),
    'the denied build to finish',
  );
  assert.equal(done.status, 'failure', JSON.stringify(done));
  const gate = done.steps.find((s) => s.name === 'gate');
  assert.deepEqual([gate?.status, gate?.answeredBy], ['denied', 'admin']);
  assert.notEqual(done.steps.find((s) => s.name === 'after')?.status, 'success');
  const log = await (await admin.raw('buildLog', { params: { buildId: done.id } })).text();
  assert.ok(!log.includes('after the gate'), log);
  await assert.rejects(
    admin.call('approveBuild', { params: { buildId: done.id }, body: {} }),
    (err: Error & { code?: string }) => err.code === 'SLUICE_BUILD_NOT_PENDING_APPROVAL',
  );
});
