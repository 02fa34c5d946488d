/**
 * Standby engines of the local runtime against a real `sluice server` (PGlite) and the real
 * Docker engine: a backend with `standbyEngines` keeps a real `sluice engine` waiting; a build
 * is handed to it (its pid file names that process and its slot, its token never in the
 * process's environment), runs to success, and another standby waits behind it; a build run
 * by a standby stops like any other; a standby that dies is replaced before a build needs it;
 * closing the backend ends the standby, and a standby whose channel closes exits without
 * running anything.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryLogger, silentLogger } from '@sluice/log';
import { processAlive } from '@sluice/process';
import { eventually, waitFor } from '@sluice/testkit';
import type { PidFile } from './engine-processes.js';
import { EngineStandby, STANDBY_SLOT_ENV } from './engine-standby.js';
import {
  assertStoppedFromOutside,
  engineLog,
  reportSuccess,
  runEngineTask,
  useLocalRuntime,
  waitForBuild,
  waitForStepRunning,
  APP_PIPELINE,
  SLOW_PIPELINE,
} from './local-backend.test-support.js';

/** The backend's log lines: a standby is handed a build only once it said it is ready. */
const { logger, lines: logLines } = memoryLogger('debug');
const runtime = useLocalRuntime(
  { app: APP_PIPELINE, slow: SLOW_PIPELINE },
  { target: { standbyEngines: 1 }, logger },
);

/** The environment of a live process, or undefined once it is gone. */
function environOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

/** This process's standby engines: children running the engine command with a slot. */
function standbyPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return ppid === process.pid && cmdline === `${runtime.target.engineCommand.join('\0')}\0`;
      } catch {
        return false;
      }
    })
    .filter((pid) => environOf(pid)?.some((v) => v.startsWith(`${STANDBY_SLOT_ENV}=`)));
}

/** The backend's log entries with message `msg`. */
function logged(msg: string): Record<string, unknown>[] {
  return logLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === msg);
}

/** Waits until the standby engine `pid` said it is ready. */
async function standbyReady(pid: number): Promise<void> {
  await waitFor(
    () => logged('standby engine ready').some((entry) => entry.pid === pid),
    (ready) => ready,
    { what: `the standby engine ${pid} to be ready` },
  );
}

/** Waits until `count` standbys said they are ready since the backend started. */
async function readyStandbys(count: number): Promise<void> {
  await waitFor(
    () => logLines.filter((line) => line.includes('standby engine ready')).length,
    (ready) => ready >= count,
    { what: `${count} standby engines to be ready` },
  );
}

async function oneStandby(what: string, not?: number): Promise<number> {
  const pids = await waitFor(
    () => standbyPids().filter((pid) => pid !== not),
    (found) => found.length === 1,
    { what },
  );
  return pids[0] ?? 0;
}

function pidFileOf(buildId: string): PidFile {
  const file = join(runtime.target.stateDir, `${buildId}.json`);
  return JSON.parse(readFileSync(file, 'utf8')) as PidFile;
}

test('a build is handed to the standby engine, runs to success, and another standby waits', async () => {
  const { plane, backend } = runtime;
  const standby = await oneStandby('a standby engine to wait');
  await readyStandbys(1);
  const task = await runEngineTask(runtime, 'app');
  const buildId = task.buildId ?? '';
  await backend.apply(task, new AbortController().signal);
  const pidFile = pidFileOf(buildId);
  assert.equal(pidFile.pid, standby, 'the build did not go to the standby engine');
  assert.ok(environOf(standby)?.includes(`${STANDBY_SLOT_ENV}=${pidFile.slot}`));
  const token = String(task.spec.engineToken);
  assert.ok(!environOf(standby)?.some((v) => v.includes(token)), 'the token is in the environ');
  await reportSuccess(plane, task);

  const build = await waitForBuild(plane, buildId);
  assert.equal(
    build.status,
    'success',
    `${JSON.stringify(build)}\n${engineLog(runtime.target, buildId)}`,
  );
  const log = await (await plane.admin.raw('buildLog', { params: { buildId } })).text();
  assert.match(log, /\[second\] greeting is hi/);
  // The build reads success once the engine reported it; its own last line may come after.
  const finished = new RegExp(`Build ${buildId} finished: success`);
  const engineOutput = await eventually(
    () => engineLog(runtime.target, buildId),
    (text) => finished.test(text),
    { timeoutMs: 30_000 },
  );
  assert.match(engineOutput, finished, 'the engine did not log its finish within 30 s');
  assert.ok(!engineLog(runtime.target, buildId).includes(token), 'the token was printed');
  await oneStandby('another standby engine behind it', standby);
  await readyStandbys(2);
});

test('StopEngine stops a build that a standby engine runs', async () => {
  const { plane, backend } = runtime;
  const task = await runEngineTask(runtime, 'slow');
  const buildId = task.buildId ?? '';
  const signal = new AbortController().signal;
  await backend.apply(task, signal);
  const { pid, slot } = pidFileOf(buildId);
  assert.ok(slot !== undefined, 'the build did not go to a standby engine');
  await backend.apply(task, signal);
  assert.equal(pidFileOf(buildId).pid, pid, 'a second engine was started');
  await reportSuccess(plane, task);
  await waitForStepRunning(plane, buildId);
  await backend.apply({ ...task, type: 'StopEngine', spec: { buildId } }, signal);
  assert.ok(!processAlive(pid), 'the engine is still running');
  const build = await waitForBuild(plane, buildId);
  assertStoppedFromOutside(build, engineLog(runtime.target, buildId));
});

test('a standby engine that dies is replaced by a ready one before any build comes', async () => {
  const standby = await oneStandby('a standby engine to wait');
  await standbyReady(standby);
  process.kill(standby, 'SIGKILL');
  const replacement = await oneStandby('a standby engine in place of the killed one', standby);
  await standbyReady(replacement);
  const ended = logged('a standby engine ended before its build').find((e) => e.pid === standby);
  assert.equal(ended?.signal, 'SIGKILL', `its end was not logged: ${JSON.stringify(ended)}`);
  assert.ok(!processAlive(standby), 'the killed standby is still alive');
});

test('closing the backend ends its standby engine and removes its output file', async () => {
  const { target, backend } = runtime;
  const standby = await oneStandby('a standby engine to wait');
  await backend.close();
  await waitFor(
    () => processAlive(standby),
    (alive) => !alive,
    { what: 'the standby engine to exit' },
  );
  assert.deepEqual(
    readdirSync(target.stateDir).filter((n) => n.endsWith('.out')),
    [],
    'a standby output file was left',
  );
});

test('a standby engine whose channel closes before a build exits at once, having run nothing', async () => {
  const { target, temp } = runtime;
  const stateDir = join(temp.path, 'orphaned');
  mkdirSync(stateDir, { recursive: true });
  const pool = EngineStandby.create({
    stateDir,
    command: target.engineCommand,
    count: 1,
    env: { ...process.env, SLUICE_SERVER_URL: '', SLUICE_ENGINE_TOKEN: '' },
    logger: silentLogger,
  });
  pool.refill();
  const standby = await waitFor(
    () => pool.take(),
    (taken) => taken !== undefined,
    { what: 'the standby engine to be ready' },
  );
  assert.ok(standby !== undefined);
  const exited = new Promise<number | null>((resolve) => standby.child.once('exit', resolve));
  // As when its agent dies: the channel closes without a build.
  standby.child.disconnect();
  assert.equal(await exited, 0, readFileSync(standby.outPath, 'utf8'));
  assert.equal(readFileSync(standby.outPath, 'utf8'), '', 'the standby printed something');
  pool.close();
});
