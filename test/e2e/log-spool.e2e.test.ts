/**
 * The log path when the control plane goes away, on the local runtime (`sluice up`: control
 * plane, agent, and each build's engine as a process on this machine's Docker engine). The
 * server is killed in the middle of a 5,000-line build and started again two minutes later on
 * the same port and database: the steps run on meanwhile, the engine's spool holds the lines,
 * and once the server is back every line is stored once, in order, and the build succeeds. An
 * engine killed with SIGKILL mid-build ends its build `error` with the reason, not `running`.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createClient, FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import {
  ensureDockerEngine,
  ensureTestImages,
  freeRestartablePort,
  makeTempDir,
  waitFor,
} from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { processAlive as alive, seededDataDir, startSluice, waitForUp } from './cli-harness.js';
import type { RunningCli } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';

const PROJECT = `spool${process.pid}`;
const LINES = 5000;
/** How long the control plane stays down, as the issue asks. */
const OUTAGE_MS = 120_000;
const loop = (from: number, to: number) =>
  `i=${from}; while [ $i -le ${to} ]; do echo "line $i"; i=$((i+1)); done`;
// Half the lines, a pause in which the test stops the server, the other half while it is down,
// then a step that only runs if nothing waited for the control plane.
const BURST_YAML = `version: "1.0"
steps:
  first:
    image: sluice/busybox:1
    commands:
      - '${loop(1, LINES / 2)}'
  second:
    image: sluice/busybox:1
    commands:
      - sleep 8
      - '${loop(LINES / 2 + 1, LINES)}'
  third:
    image: sluice/busybox:1
    commands:
      - "true"
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
  for (const volume of [`${PROJECT}-burst`, `${PROJECT}k-slow`])
    spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${volume}`]);
});

async function up(dir: string, port: number, env: NodeJS.ProcessEnv = {}) {
  const cli = startSluice(['up', '--port', String(port), '--data-dir', dir], { env });
  started.push(cli);
  const { url, token } = await waitForUp(cli);
  return { cli, url, admin: createClient({ baseUrl: url, token }) };
}

async function killed(cli: RunningCli): Promise<void> {
  cli.child.kill('SIGKILL');
  await cli.done;
}

async function logText(admin: SluiceClient, buildId: string): Promise<string> {
  return (await admin.raw('buildLog', { params: { buildId } })).text();
}

function finished(admin: SluiceClient, buildId: string, timeoutMs = 180_000): Promise<Build> {
  return waitFor(
    () => admin.call('getBuild', { params: { buildId } }),
    (b) => FINISHED_STATUSES.includes(b.status),
    { what: `build ${buildId} to finish`, timeoutMs, intervalMs: 500 },
  );
}

function enginePid(dir: string, buildId: string): number {
  const file = join(dir, 'agent', `${buildId}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid;
}

test(
  'a control plane down for two minutes mid-build costs no line: 5,000 lines stored once, in order',
  { timeout: 600_000 },
  async (t) => {
    const temp = await makeTempDir('sluice-spool-e2e-');
    await seededDataDir(temp.path);
    temps.push(temp);
    // Free for the two minutes the server is down, whatever other test files bind meanwhile.
    const port = await freeRestartablePort();
    const first = await up(temp.path, port);
    const { burst = '' } = await createPipelines(first.admin, PROJECT, { burst: BURST_YAML });
    const build = await first.admin.call('createBuild', {
      params: { pipelineId: burst },
      body: {},
    });
    await waitFor(
      () => logText(first.admin, build.id),
      (text) => text.includes(`[first] line ${LINES / 2}\n`),
      { what: 'the first half of the lines to be stored', intervalMs: 250 },
    );
    const pid = enginePid(temp.path, build.id);

    await killed(first.cli);
    const downAt = Date.now();
    // The engine runs on without its control plane and spools what the steps print.
    const spool = join(temp.path, 'agent', 'log-spool', build.id);
    await delay(30_000);
    assert.ok(alive(pid), 'the engine died with the control plane');
    const segments = readdirSync(spool).filter((name) => name.endsWith('.seg'));
    assert.ok(segments.length > 0, `no spool segment in ${spool}`);
    await delay(OUTAGE_MS - (Date.now() - downAt));

    const second = await up(temp.path, port);
    const backAt = Date.now();
    const done = await finished(second.admin, build.id);
    t.diagnostic(
      `spool segments 30 s into the outage: ${segments.length}; the build finished ${Date.now() - backAt} ms after the server was back`,
    );
    assert.equal(done.status, 'success', JSON.stringify(done));
    const third = done.steps.find((s) => s.name === 'third');
    assert.equal(third?.status, 'success', JSON.stringify(done.steps));
    assert.ok(
      Date.parse(third.finishedAt ?? '') < backAt,
      `the steps waited for the control plane: third finished at ${third.finishedAt}, the server came back at ${new Date(backAt).toISOString()}`,
    );

    const lines = (await logText(second.admin, build.id)).split('\n').filter((l) => l !== '');
    const expected = Array.from({ length: LINES }, (_, i) =>
      i < LINES / 2 ? `[first] line ${i + 1}` : `[second] line ${i + 1}`,
    );
    assert.equal(lines.length, LINES, 'lines stored');
    const wrong = lines.findIndex((line, i) => line !== expected[i]);
    assert.equal(wrong, -1, `line ${wrong + 1} is "${lines[wrong]}", not "${expected[wrong]}"`);
    // Acknowledged in full, so the engine removed its spool.
    await waitFor(
      () => existsSync(spool),
      (left) => !left,
      { what: 'the spool to be removed' },
    );
    await killed(second.cli);
  },
);

test(
  'an engine killed with SIGKILL mid-build ends its build error with the reason, and leaves no container',
  { timeout: 300_000 },
  async () => {
    const temp = await makeTempDir('sluice-spool-e2e-');
    await seededDataDir(temp.path);
    temps.push(temp);
    // The agent sees its engine killed and reports it (docs/pod-failures.md, "On the local
    // runtime"); the heartbeats' silence (15 s here: the server's former setting and the
    // runtime's workflow limit) stays the backstop for an engine whose agent is gone.
    const sluice = await up(temp.path, 0, { SLUICE_ENGINE_SILENT_AFTER_MS: '15000' });
    await sluice.admin.call('patchRuntimeEnvironment', {
      params: { name: 'local' },
      body: {
        patch: {
          runtimeScheduler: { workflowLimits: { TIME_ENGINE_INACTIVE_UNTIL_TERMINATION: 15 } },
        },
      },
    });
    const { slow = '' } = await createPipelines(sluice.admin, `${PROJECT}k`, { slow: SLOW_YAML });
    const build = await sluice.admin.call('createBuild', {
      params: { pipelineId: slow },
      body: {},
    });
    await waitFor(
      () => sluice.admin.call('getBuild', { params: { buildId: build.id } }),
      (b) => b.steps[0]?.status === 'running',
      { what: 'the slow step to run' },
    );
    const pid = enginePid(temp.path, build.id);
    process.kill(pid, 'SIGKILL');

    const done = await finished(sluice.admin, build.id, 120_000);
    assert.equal(done.status, 'error', JSON.stringify(done));
    assert.match(
      done.reason ?? '',
      new RegExp(`engine process ${pid} was killed by SIGKILL before its build finished`),
    );
    await waitFor(
      () =>
        execFileSync('docker', ['ps', '-aq', '--filter', `label=io.sluice.build-id=${build.id}`], {
          encoding: 'utf8',
        }).trim(),
      (ids) => ids === '',
      { what: "the killed engine's containers to be removed" },
    );
    await killed(sluice.cli);
  },
);
