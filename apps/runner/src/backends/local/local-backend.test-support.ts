/**
 * A real control plane for the local backend's tests: the built `sluice server` on PGlite in a
 * temp dir, on a free port that is also its public URL (the `serverUrl` of RunEngine tasks),
 * with an admin, a runtime environment `local` extending `system/default/local`, a project
 * with the pipelines asked for, and an agent; `takeTask` polls with the agent token.
 * @module
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@sluice/log';
import { silentLogger } from '@sluice/log';
import { createClient, FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, SluiceClient, Task } from '@sluice/protocol';
import {
  ensureDockerEngine,
  ensureTestImages,
  freeLoopbackPort,
  makeTempDir,
  waitFor,
} from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import type { LocalTarget } from '../../runner-config.js';
import type { RuntimeBackend } from '../../runtime-backend.js';
import { createLocalBackend } from './local-backend.js';

/** The built CLI, which runs the server here and the engines of the backend under test. */
export const SLUICE_BIN = fileURLToPath(new URL('../../../../cli/bin/sluice.js', import.meta.url));

const ADMIN_TOKEN = 'slu_u_local-backend-test-admin-0123456789';

export interface TestControlPlane {
  url: string;
  admin: SluiceClient;
  agent: SluiceClient;
  /** Pipeline ids by name. */
  pipelines: Record<string, string>;
  /** The server's output so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export async function startControlPlane(
  dir: string,
  pipelines: Record<string, string>,
): Promise<TestControlPlane> {
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [SLUICE_BIN, 'server', '--port', String(port), '--data-dir', join(dir, 'data')],
    {
      env: { ...process.env, SLUICE_BOOTSTRAP_TOKEN: ADMIN_TOKEN, SLUICE_PUBLIC_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForListening(child, () => output);
  const admin = createClient({ baseUrl: url, token: ADMIN_TOKEN });
  const spec = { version: 1, metadata: { name: 'local' }, extends: ['system/default/local'] };
  await admin.call('createRuntimeEnvironment', { body: { name: 'local', spec } });
  await admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
  const project = `lb${process.pid}`;
  await admin.call('createProject', { body: { name: project } });
  const ids: Record<string, string> = {};
  for (const [name, yaml] of Object.entries(pipelines))
    ids[name] = (
      await admin.call('createPipeline', { params: { project }, body: { name, yaml } })
    ).id;
  const { token } = await admin.call('createAgent', { body: { name: 'a1', runtimes: ['local'] } });
  return {
    url,
    admin,
    agent: createClient({ baseUrl: url, token }),
    pipelines: ids,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function waitForListening(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Generous: a loaded machine (test files side by side) opens PGlite slowly. A server that did
    // not start is killed, so that it does not hold the test file open until its timeout.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no server within 180 s:\n${output()}`));
    }, 180_000);
    child.stdout?.on('data', () => {
      if (!output().includes('listening on')) return;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output()}`)));
  });
}

/**
 * Long-polls as the agent until a task of `type` for `buildId` arrives and returns it
 * unreported; other tasks are handed to `other` (which should carry them out and report).
 */
export async function takeTask(
  plane: TestControlPlane,
  buildId: string,
  type: Task['type'],
  other: (task: Task) => Promise<void>,
): Promise<Task> {
  for (let round = 0; round < 20; round++) {
    const { tasks } = await plane.agent.call('pollTasks', { query: { wait: 5 } });
    let found: Task | undefined;
    for (const task of tasks) {
      if (found === undefined && task.type === type && task.buildId === buildId) found = task;
      else await other(task);
    }
    if (found !== undefined) return found;
  }
  throw new Error(`no ${type} task for build ${buildId}`);
}

/** Tells the control plane the task succeeded, as the agent's task runner does. */
export async function reportSuccess(plane: TestControlPlane, task: Task): Promise<void> {
  await plane.agent.call('reportTaskStatus', {
    params: { taskId: task.id },
    body: { status: 'Success', statusRevision: task.statusRevision + 1 },
  });
}

/** Polls the build until it has finished (a deadline, not a timed assertion). */
export async function waitForBuild(plane: TestControlPlane, buildId: string): Promise<Build> {
  return waitFor(
    () => plane.admin.call('getBuild', { params: { buildId } }),
    (b) => FINISHED_STATUSES.includes(b.status),
    { what: `build ${buildId} to finish` },
  );
}

/**
 * An engine its agent stopped without a cancel (SIGTERM) ends its build `error`, saying it was
 * stopped from outside, not "cancelled": nobody cancelled it.
 */
export function assertStoppedFromOutside(build: Build, engineLog: string): void {
  const seen = `${JSON.stringify(build)}\n${engineLog}`;
  assert.equal(build.status, 'error', seen);
  assert.match(build.reason ?? '', /stopped by SIGTERM from outside Sluice, not by a cancel/, seen);
}

/** Two steps, the second reading what the first exported. */
export const APP_PIPELINE = `version: "1.0"
steps:
  hello:
    image: sluice/busybox:1
    commands:
      - echo hello from the local runtime
      - cf_export GREETING=hi
  second:
    image: sluice/busybox:1
    commands:
      - echo greeting is $GREETING
`;
/** One step that runs until it is stopped (30 s). */
export const SLOW_PIPELINE = `version: "1.0"
steps:
  wait:
    image: sluice/busybox:1
    commands:
      - echo sleeping
      - sleep 30
`;

/** A test file's local runtime: set in its `before`, removed in its `after`. */
export interface LocalRuntimeFixture {
  temp: TempDir;
  plane: TestControlPlane;
  target: LocalTarget;
  backend: RuntimeBackend;
}

/**
 * Registers the file's `before` and `after`: the Docker engine and the test images, a control
 * plane with `pipelines`, and a local backend (stopping its engines on close) on real
 * `sluice engine` processes; `target` adds to or overrides the runtime's settings.
 */
export function useLocalRuntime(
  pipelines: Record<string, string>,
  options: { target?: Partial<LocalTarget>; logger?: Logger } = {},
): LocalRuntimeFixture {
  const fixture = {} as LocalRuntimeFixture;
  before(async () => {
    await ensureDockerEngine();
    await ensureTestImages();
    fixture.temp = await makeTempDir('sluice-local-backend-');
    fixture.plane = await startControlPlane(fixture.temp.path, pipelines);
    fixture.target = {
      kind: 'local',
      name: 'local',
      engineCommand: [process.execPath, SLUICE_BIN, 'engine'],
      stateDir: join(fixture.temp.path, 'state'),
      stopGraceSeconds: 20,
      ...options.target,
    };
    fixture.backend = createLocalBackend(fixture.target, {
      logger: options.logger ?? silentLogger,
      stopEnginesOnClose: true,
      env: process.env,
    });
  });
  after(async () => {
    await fixture.backend?.close();
    await fixture.plane?.stop();
    for (const name of Object.keys(pipelines))
      spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-lb${process.pid}-${name}`]);
    await fixture.temp?.cleanup();
  });
  return fixture;
}

/**
 * Creates a build of `pipeline` and takes its RunEngine task, as the agent would; the other
 * tasks that come first are carried out and reported.
 */
export async function runEngineTask(runtime: LocalRuntimeFixture, pipeline: string): Promise<Task> {
  const { plane, backend } = runtime;
  const pipelineId = plane.pipelines[pipeline] ?? '';
  const build = await plane.admin.call('createBuild', { params: { pipelineId }, body: {} });
  return takeTask(plane, build.id, 'RunEngine', async (other) => {
    await backend.apply(other, new AbortController().signal);
    await reportSuccess(plane, other);
  });
}

/** The engine's own output for a build, for failure messages. */
export function engineLog(target: LocalTarget, buildId: string): string {
  const file = join(target.stateDir, `${buildId}.log`);
  return existsSync(file) ? readFileSync(file, 'utf8') : '(no engine log)';
}

/** Polls the build until its first step runs. */
export async function waitForStepRunning(plane: TestControlPlane, buildId: string): Promise<void> {
  await waitFor(
    () => plane.admin.call('getBuild', { params: { buildId } }),
    (b) => b.steps[0]?.status === 'running',
    { what: `the first step of ${buildId} to run` },
  );
}
