/**
 * The local backend against a real `sluice server` (PGlite) and the real Docker engine: tasks
 * taken with the agent token start real `sluice engine` processes that run their builds;
 * starting is idempotent (also for a restarted agent), stopping ends a build `error` and
 * leaves no process or container, the reaper's listing finds live engines and forgets dead ones,
 * and finds what a killed engine left in Docker (this runtime's only) for the reaper to remove.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '@sluice/log';
import { waitFor } from '@sluice/testkit';
import { TaskFailure } from '../../runtime-backend.js';
import { processAlive } from '@sluice/process';
import { createLocalBackend, dockerOwner } from './local-backend.js';
import {
  assertStoppedFromOutside,
  engineLog as engineLogOf,
  reportSuccess,
  runEngineTask as runEngineTaskOf,
  useLocalRuntime,
  waitForBuild,
  waitForStepRunning as waitForStepRunningOf,
  APP_PIPELINE,
  SLOW_PIPELINE,
} from './local-backend.test-support.js';

const runtime = useLocalRuntime({ app: APP_PIPELINE, slow: SLOW_PIPELINE });

const runEngineTask = (pipeline: string) => runEngineTaskOf(runtime, pipeline);
const engineLog = (buildId: string) => engineLogOf(runtime.target, buildId);
const waitForStepRunning = (buildId: string) => waitForStepRunningOf(runtime.plane, buildId);

function pidOf(buildId: string): number {
  const { target } = runtime;
  const file = join(target.stateDir, `${buildId}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid;
}

function containersOf(buildId: string): string {
  return execFileSync('docker', ['ps', '-aq', '--filter', `label=io.sluice.build-id=${buildId}`], {
    encoding: 'utf8',
  }).trim();
}

test('RunEngine starts an engine that runs the build to success, then its pid file goes', async () => {
  const { plane, target, backend } = runtime;
  const task = await runEngineTask('app');
  const buildId = task.buildId ?? '';
  await backend.apply(task, new AbortController().signal);
  const pidFile = JSON.parse(readFileSync(join(target.stateDir, `${buildId}.json`), 'utf8')) as {
    pid: number;
    startedAt: string;
    command: string[];
  };
  assert.deepEqual(pidFile.command, target.engineCommand);
  assert.ok(Number.isInteger(pidFile.pid) && pidFile.pid > 1);
  await reportSuccess(plane, task);

  const build = await waitForBuild(plane, buildId);
  assert.equal(build.status, 'success', `${JSON.stringify(build)}\n${engineLog(buildId)}`);
  assert.deepEqual(
    build.steps.map((s) => [s.name, s.status]),
    [
      ['hello', 'success'],
      ['second', 'success'],
    ],
  );
  const log = await (await plane.admin.raw('buildLog', { params: { buildId } })).text();
  assert.match(log, /\[second\] greeting is hi/);
  await waitFor(
    () => existsSync(join(target.stateDir, `${buildId}.json`)),
    (exists) => !exists,
    { what: 'the pid file to go' },
  );
  assert.ok(!engineLog(buildId).includes(String(task.spec.engineToken)), 'the token was printed');
});

test('RunEngine applied twice, or by a restarted agent, starts one engine; StopEngine ends the build as stopped from outside', async () => {
  const { plane, target, backend } = runtime;
  const task = await runEngineTask('slow');
  const buildId = task.buildId ?? '';
  const signal = new AbortController().signal;
  await Promise.all([backend.apply(task, signal), backend.apply(task, signal)]);
  const pid = pidOf(buildId);
  await backend.apply(task, signal);
  const restarted = createLocalBackend(target, { logger: silentLogger, env: process.env });
  await restarted.apply(task, signal);
  assert.equal(pidOf(buildId), pid, 'a second engine was started');
  const refs = (await restarted.listBuildObjects()).filter((r) => r.buildId === buildId);
  assert.deepEqual(refs, [{ buildId, kind: 'EngineProcess', name: String(pid), phase: 'Running' }]);
  await restarted.close();
  assert.ok(processAlive(pid), 'closing a backend stopped an engine it was not asked to stop');
  await reportSuccess(plane, task);
  await waitForStepRunning(buildId);

  await backend.apply({ ...task, type: 'StopEngine', spec: { buildId } }, signal);
  assert.ok(!processAlive(pid), 'the engine is still running');
  assert.ok(!existsSync(join(target.stateDir, `${buildId}.json`)), 'the pid file is left');
  const build = await waitForBuild(plane, buildId);
  assertStoppedFromOutside(build, engineLog(buildId));
  assert.equal(containersOf(buildId), '', 'containers of the build were left');
  // Stopping what is not running is success.
  await backend.apply({ ...task, type: 'StopEngine', spec: { buildId } }, signal);
});

test('listBuildObjects finds a live engine, deleteBuildObjects stops it, dead pid files are dropped', async () => {
  const { plane, target, backend } = runtime;
  const task = await runEngineTask('slow');
  const buildId = task.buildId ?? '';
  await backend.apply(task, new AbortController().signal);
  await reportSuccess(plane, task);
  const pid = pidOf(buildId);
  const dead = spawnSync('true').pid;
  writeFileSync(
    join(target.stateDir, 'bld_gone.json'),
    JSON.stringify({ pid: dead, startedAt: new Date().toISOString(), command: ['true'] }),
  );
  const refs = await backend.listBuildObjects();
  assert.deepEqual(refs, [{ buildId, kind: 'EngineProcess', name: String(pid), phase: 'Running' }]);
  assert.ok(!existsSync(join(target.stateDir, 'bld_gone.json')), 'a dead pid file was kept');
  await waitForStepRunning(buildId);

  await backend.deleteBuildObjects(refs);
  assert.ok(!processAlive(pid), 'the engine is still running');
  assert.deepEqual(await backend.listBuildObjects(), []);
  const build = await waitForBuild(plane, buildId);
  assertStoppedFromOutside(build, engineLog(buildId));
  assert.equal(containersOf(buildId), '', 'containers of the build were left');
});

test("what an engine killed with its agent left is listed for the reaper, this runtime's only, and removed", async () => {
  const { plane, target, backend } = runtime;
  // An agent that starts the engine, then dies (its handles let go) without stopping it.
  const dying = createLocalBackend(target, { logger: silentLogger, env: process.env });
  const task = await runEngineTask('slow');
  const buildId = task.buildId ?? '';
  await dying.apply(task, new AbortController().signal);
  await reportSuccess(plane, task);
  await waitForStepRunning(buildId);
  await dying.close();
  // The engine killed with its process group (a crash, a restart): nothing of it cleans up.
  const pid = pidOf(buildId);
  process.kill(-pid, 'SIGKILL');
  await waitFor(
    () => processAlive(pid),
    (alive) => !alive,
    { what: 'the killed engine to be gone' },
  );
  assert.notEqual(containersOf(buildId), '', 'the killed engine left no container to find');
  // Another local runtime's build on the same Docker engine.
  const other = execFileSync(
    'docker',
    [
      'create',
      '--label',
      'io.sluice.build-id=bld_elsewhere',
      '--label',
      `io.sluice.owner=${dockerOwner(join(target.stateDir, 'elsewhere'))}`,
      'sluice/busybox:1',
      'true',
    ],
    { encoding: 'utf8' },
  ).trim();
  try {
    const refs = await backend.listBuildObjects();
    const kinds = refs.filter((r) => r.buildId === buildId).map((r) => r.kind);
    assert.deepEqual([...new Set(kinds)].sort(), ['Container', 'Network'], JSON.stringify(refs));
    assert.ok(
      refs.some((r) => r.kind === 'Container' && r.name === `sluice-${buildId}-wait-1`),
      JSON.stringify(refs),
    );
    assert.ok(!refs.some((r) => r.buildId === 'bld_elsewhere'), "another runtime's is listed");

    await backend.deleteBuildObjects(refs.filter((r) => r.buildId === buildId));
    assert.equal(containersOf(buildId), '', 'containers of the build were left');
    const networks = execFileSync(
      'docker',
      ['network', 'ls', '-q', '--filter', `label=io.sluice.build-id=${buildId}`],
      { encoding: 'utf8' },
    ).trim();
    assert.equal(networks, '', 'the network of the build was left');
    assert.deepEqual(
      (await backend.listBuildObjects()).filter((r) => r.buildId === buildId),
      [],
    );
    assert.notEqual(
      execFileSync('docker', ['ps', '-aq', '--filter', `id=${other}`], { encoding: 'utf8' }).trim(),
      '',
      "another runtime's container was removed",
    );
  } finally {
    spawnSync('docker', ['rm', '-f', other]);
  }
});

test('health checks Docker and the engine command, and says what to do when either is wrong', async () => {
  const { backend, target, temp } = runtime;
  const healthy = await backend.health();
  assert.equal(healthy.healthy, true, healthy.message);
  assert.deepEqual(
    healthy.checks?.map((c) => [c.name, c.ok]),
    [
      ['docker', true],
      ['engine-command', true],
    ],
  );
  const broken = createLocalBackend(
    {
      ...target,
      dockerHost: `unix://${join(temp.path, 'no-docker.sock')}`,
      engineCommand: [join(temp.path, 'no-such-node'), 'engine'],
    },
    { logger: silentLogger, env: process.env },
  );
  const sick = await broken.health();
  assert.equal(sick.healthy, false);
  assert.match(sick.message ?? '', /no-docker\.sock does not answer .*start dockerd/);
  assert.match(sick.message ?? '', /no-such-node" is not an executable file: reinstall sluice/);
  await assert.rejects(
    broken.apply(
      { ...(await runEngineTask('app')), runtime: 'local' },
      new AbortController().signal,
    ),
    (err) => err instanceof TaskFailure && !err.retriable && /no-such-node/.test(err.message),
  );
  await broken.close();
});
