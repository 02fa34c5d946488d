/**
 * `sluice up` as a user runs it: one process with the control plane on PGlite, the local
 * runtime and its agent. Builds made through the API run as engine processes on the Docker
 * engine, their log streams over SSE while it is written, a cancelled build ends `terminated`
 * and leaves no engine or container; `--demo` shows its log and result, and a second start on
 * the same data directory keeps the admin token, and still ends on SIGTERM once that directory
 * is removed under it.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import { ensureDockerEngine, ensureTestImages, makeTempDir, waitFor } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { processAlive as alive, startSluice, waitForUp } from './cli-harness.js';
import type { RunningCli } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';
import { streamLog } from './log-stream.js';

const PROJECT = `up${process.pid}`;
const STEPS_YAML = `version: "1.0"
steps:
  first:
    image: sluice/busybox:1
    commands:
      - echo line one
      - cf_export COLOUR=green
  second:
    image: sluice/busybox:1
    commands:
      - echo colour is $COLOUR
`;
const SLOW_YAML = `version: "1.0"
steps:
  wait:
    image: sluice/busybox:1
    commands:
      - echo sleeping
      - sleep 600
`;

const started: RunningCli[] = [];
const temps: TempDir[] = [];

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
});

after(async () => {
  for (const cli of started) if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
  await Promise.all(started.map((cli) => cli.done));
  for (const temp of temps) await temp.cleanup();
  for (const volume of [`${PROJECT}-steps`, `${PROJECT}-slow`, 'demo-hello'])
    spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${volume}`]);
});

interface Up {
  cli: RunningCli;
  url: string;
  token: string;
}

/** `sluice up` on a free port, once it says it is up. */
async function up(
  dir: string,
  extra: string[] = [],
  readyText = 'Ctrl-C stops Sluice',
): Promise<Up> {
  const cli = startSluice(['up', '--port', '0', '--data-dir', dir, ...extra]);
  started.push(cli);
  return { cli, ...(await waitForUp(cli, readyText)) };
}

async function stop(cli: RunningCli): Promise<{ code: number | null; output: string }> {
  cli.child.kill('SIGTERM');
  const result = await cli.done;
  return { code: result.code, output: result.stdout + result.stderr };
}

async function tempDir(): Promise<string> {
  const temp = await makeTempDir('sluice-up-e2e-');
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

test('builds made through the API run on this machine: log over SSE, steps, timing; a cancelled one leaves nothing', async () => {
  const dir = await tempDir();
  const sluice = await up(dir);
  const admin = createClient({ baseUrl: sluice.url, token: sluice.token });
  const ids = await createPipelines(admin, PROJECT, { steps: STEPS_YAML, slow: SLOW_YAML });

  const build = await admin.call('createBuild', {
    params: { pipelineId: ids.steps ?? '' },
    body: {},
  });
  const lines = await streamLog(sluice.url, sluice.token, build.id);
  for (const line of ['[first] line one', '[second] colour is green'])
    assert.ok(lines.includes(line), `"${line}" not streamed:\n${lines.join('\n')}`);
  const done = await admin.call('getBuild', { params: { buildId: build.id } });
  assert.equal(done.status, 'success', JSON.stringify(done));
  assert.deepEqual(
    done.steps.map((s) => [s.name, s.status]),
    [
      ['first', 'success'],
      ['second', 'success'],
    ],
  );
  const stamps = [
    'queuedAt',
    'electedAt',
    'dispatchedAt',
    'objectsCreatedAt',
    'engineStartedAt',
    'firstStepStartedAt',
    'finishedAt',
  ] as const;
  for (const stamp of stamps)
    assert.ok(done.timing[stamp], `timing.${stamp} missing: ${JSON.stringify(done.timing)}`);
  const order = ['queuedAt', 'electedAt', 'dispatchedAt', 'finishedAt'] as const;
  const times = order.map((k) => Date.parse(done.timing[k] ?? ''));
  assert.deepEqual(
    [...times].sort((a, b) => a - b),
    times,
    JSON.stringify(done.timing),
  );

  const slow = await admin.call('createBuild', {
    params: { pipelineId: ids.slow ?? '' },
    body: {},
  });
  await waitFor(
    () => admin.call('getBuild', { params: { buildId: slow.id } }),
    (b) => b.steps[0]?.status === 'running',
    { what: 'the slow step to run' },
  );
  const pidFile = join(dir, 'agent', `${slow.id}.json`);
  const { pid } = JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: number };
  assert.ok(alive(pid), 'the engine of the running build is not running');
  await admin.call('cancelBuild', { params: { buildId: slow.id } });
  const cancelled = await finished(admin, slow.id);
  assert.equal(cancelled.status, 'terminated', JSON.stringify(cancelled));
  await waitFor(
    () => alive(pid) || existsSync(pidFile),
    (left) => !left,
    { what: 'the engine to go' },
  );
  const containers = execFileSync(
    'docker',
    ['ps', '-aq', '--filter', `label=io.sluice.build-id=${slow.id}`],
    { encoding: 'utf8' },
  ).trim();
  assert.equal(containers, '', 'containers of the cancelled build were left');

  const { code } = await stop(sluice.cli);
  assert.equal(code, 0);
});

test('sluice up --demo prints the demo log and its success; a second start keeps the admin token', async () => {
  const dir = await tempDir();
  const first = await up(dir, ['--demo'], 'The demo is done');
  const out = first.cli.stdout();
  for (const text of ['[hello] Hello from Sluice', '[count] counting 3', '[done] All done'])
    assert.ok(out.includes(text), `"${text}" missing from:\n${out}`);
  assert.match(out, /Build \S+ success/);
  assert.match(out, /engine running the build/);
  const stopped = await stop(first.cli);
  assert.equal(stopped.code, 0, stopped.output);
  assert.equal(readFileSync(join(dir, 'admin-token'), 'utf8').trim(), first.token);

  const second = await up(dir);
  assert.equal(second.token, first.token);
  const admin = createClient({ baseUrl: second.url, token: second.token });
  const { items } = await admin.call('listRuntimeEnvironments');
  assert.deepEqual(
    items.map((re) => [re.name, re.isDefault]),
    [['local', true]],
  );
  // Its data directory removed under it, a SIGTERM still ends it: it says what failed and
  // exits 70, having stopped the rest.
  rmSync(dir, { recursive: true, force: true });
  const gone = await stop(second.cli);
  assert.equal(gone.code, 70, gone.output);
  assert.match(gone.output, /Stopping the agent failed: The agent's state directory \S+ is gone/);
});
