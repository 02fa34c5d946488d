/**
 * An engine process of the local runtime that ends before its build, against a real `sluice
 * server` (PGlite) and the real Docker engine: the backend's monitor reports it through the
 * agent's infrastructure-error route, so the build ends `error` in seconds with the signal or
 * exit code and the engine's last lines (when it printed any) in its reason, never its token;
 * a standby engine killed after it took a build the same; one that dies before its build started
 * is retried once with a new engine process, as a pod is; an engine that runs its build to the
 * end exits 0, and its report changes nothing.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCKER_LABELS } from '@sluice/labels';
import { memoryLogger, silentLogger } from '@sluice/log';
import type { InfrastructureErrorReport } from '@sluice/protocol';
import { waitFor } from '@sluice/testkit';
import type { ReportInfrastructureError } from '../../runtime-backend.js';
import { createLocalBackend } from './local-backend.js';
import {
  engineLog,
  reportSuccess,
  runEngineTask,
  takeTask,
  useLocalRuntime,
  waitForBuild,
  waitForStepRunning,
  APP_PIPELINE,
  SLOW_PIPELINE,
} from './local-backend.test-support.js';

const runtime = useLocalRuntime({ app: APP_PIPELINE, slow: SLOW_PIPELINE });

/** The reports sent, by build, as the agent sends them (its infrastructure-error route). */
const reports = new Map<string, InfrastructureErrorReport[]>();
const report: ReportInfrastructureError = async (buildId, body) => {
  reports.set(buildId, [...(reports.get(buildId) ?? []), body]);
  return runtime.plane.agent.call('agentInfrastructureError', { params: { buildId }, body });
};
const monitors = new AbortController();

test.after(() => monitors.abort());

/** The build's containers and networks Docker still has, by the engine's build label. */
function dockerLeftovers(buildId: string) {
  const list = (what: string[]) =>
    execFileSync('docker', [...what, '--filter', `label=${DOCKER_LABELS.build}=${buildId}`], {
      encoding: 'utf8',
    }).trim();
  return { containers: list(['ps', '-aq']), networks: list(['network', 'ls', '-q']) };
}

/** Waits (a deadline, not a timed assertion) until the build reads `error`. */
async function waitForError(buildId: string, what: string) {
  return waitFor(
    () => runtime.plane.admin.call('getBuild', { params: { buildId } }),
    (b) => b.status === 'error',
    { what: `build ${buildId} to end error after ${what}`, timeoutMs: 15_000 },
  );
}

test('an engine killed mid-build ends its build error with the signal in its reason', async (t) => {
  const { plane, target, backend } = runtime;
  void backend.monitor?.({ report, signal: monitors.signal });
  const task = await runEngineTask(runtime, 'slow');
  const buildId = task.buildId ?? '';
  await backend.apply(task, new AbortController().signal);
  await reportSuccess(plane, task);
  await waitForStepRunning(plane, buildId);
  const engine = Number(
    (await backend.listBuildObjects()).find((o) => o.buildId === buildId)?.name,
  );
  const killed = performance.now();
  process.kill(engine, 'SIGKILL');
  const build = await waitForError(buildId, 'SIGKILL');
  t.diagnostic(`error ${Math.round(performance.now() - killed)} ms after the kill`);
  assert.match(build.reason ?? '', new RegExp(`engine process ${engine} was killed by SIGKILL`));
  assert.ok(!(build.reason ?? '').includes(String(task.spec.engineToken)), 'the token is shown');
  assert.equal(reports.get(buildId)?.[0]?.reason, 'EngineKilled', engineLog(target, buildId));
  // Its step's containers and the build's network went with it (removed before the report).
  assert.deepEqual(dockerLeftovers(buildId), { containers: '', networks: '' });
});

/**
 * A build whose engine is `script` and ends at start: handed to it, then (its engine never
 * started the build: retried once with a new engine process, as a pod is) handed to it again.
 */
async function quitAtStartTwice(name: string, script: string): Promise<string> {
  const { plane, target, temp } = runtime;
  const backend = createLocalBackend(
    {
      ...target,
      stateDir: join(temp.path, name),
      engineCommand: [process.execPath, '-e', script],
    },
    { logger: silentLogger, env: process.env },
  );
  void backend.monitor?.({ report, signal: monitors.signal });
  try {
    const task = await runEngineTask(runtime, 'app');
    const buildId = task.buildId ?? '';
    await backend.apply(task, new AbortController().signal);
    await reportSuccess(plane, task);
    const again = await takeTask(plane, buildId, 'RunEngine', () => Promise.resolve());
    await backend.apply(again, new AbortController().signal);
    await reportSuccess(plane, again);
    await waitForError(buildId, name);
    return buildId;
  } finally {
    await backend.close();
  }
}

test('an engine that exits 1 at start is retried once, then its build ends error with the code', async () => {
  const buildId = await quitAtStartTwice(
    'broken',
    'console.error("engine broke at start"); process.exit(1)',
  );
  const build = await runtime.plane.admin.call('getBuild', { params: { buildId } });
  assert.match(build.reason ?? '', /exited with code 1 before its build finished/);
  assert.match(build.reason ?? '', /engine broke at start/);
  assert.match(build.reason ?? '', /after 2 attempt\(s\) with new engine processes/);
  assert.deepEqual(
    reports.get(buildId)?.map((r) => r.reason),
    ['EngineExited', 'EngineExited'],
  );
});

test('an engine that exits 0 without running its build does not leave it elected', async () => {
  // What a standby engine whose hand-off failed does: it ends quietly, with code 0.
  const buildId = await quitAtStartTwice('quiet', 'process.exit(0)');
  const build = await runtime.plane.admin.call('getBuild', { params: { buildId } });
  assert.match(build.reason ?? '', /exited with code 0 before its build finished/);
  assert.match(build.reason ?? '', /after 2 attempt\(s\) with new engine processes/);
});

test('an engine that runs its build to the end exits 0, and its report changes nothing', async () => {
  const { plane, target, backend } = runtime;
  const task = await runEngineTask(runtime, 'app');
  const buildId = task.buildId ?? '';
  await backend.apply(task, new AbortController().signal);
  await reportSuccess(plane, task);
  const build = await waitForBuild(plane, buildId);
  assert.equal(build.status, 'success', engineLog(target, buildId));
  await waitFor(
    async () => (await backend.listBuildObjects()).some((o) => o.buildId === buildId),
    (running) => !running,
    { what: `the engine of build ${buildId} to exit` },
  );
  // Every exit the agent did not ask for is reported: after an exit 0 the build has ended.
  await waitFor(
    () => Promise.resolve(reports.get(buildId) ?? []),
    (sent) => sent.length > 0,
    { what: `the exit of build ${buildId}'s engine reported` },
  );
  assert.deepEqual(
    (reports.get(buildId) ?? []).map((r) => r.reason),
    ['EngineExited'],
  );
  assert.match(reports.get(buildId)?.[0]?.message ?? '', /exited with code 0/);
  assert.equal((await plane.admin.call('getBuild', { params: { buildId } })).status, 'success');
});

test('a standby engine killed after it was handed a build ends that build error', async () => {
  const { plane, target, temp } = runtime;
  const { logger, lines } = memoryLogger('debug');
  const pooled = createLocalBackend(
    { ...target, stateDir: join(temp.path, 'standby'), standbyEngines: 1 },
    { logger, stopEnginesOnClose: true, env: process.env },
  );
  void pooled.monitor?.({ report, signal: monitors.signal });
  try {
    // A standby is handed a build only once it said it is ready.
    await waitFor(
      () => lines.some((line) => line.includes('standby engine ready')),
      (ready) => ready,
      { what: 'the standby engine to be ready' },
    );
    const task = await runEngineTask(runtime, 'slow');
    const buildId = task.buildId ?? '';
    await pooled.apply(task, new AbortController().signal);
    const pidFile = readFileSync(join(temp.path, 'standby', `${buildId}.json`), 'utf8');
    assert.ok('slot' in (JSON.parse(pidFile) as object), 'the build did not go to the standby');
    await reportSuccess(plane, task);
    await waitForStepRunning(plane, buildId);
    const engine = Number(
      (await pooled.listBuildObjects()).find((o) => o.buildId === buildId)?.name,
    );
    process.kill(engine, 'SIGKILL');
    const build = await waitForError(buildId, 'SIGKILL');
    assert.match(build.reason ?? '', new RegExp(`engine process ${engine} was killed by SIGKILL`));
  } finally {
    await pooled.close();
  }
});
