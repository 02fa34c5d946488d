/**
 * A real control plane for the local backend's tests: the built `sluice server` on PGlite in a
 * temp dir, on a free port that is also its public URL (the `serverUrl` of RunEngine tasks),
 * with an admin, a runtime environment `local` extending `system/default/local`, a project
 * with the pipelines asked for, and an agent; `takeTask` polls with the agent token.
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, SluiceClient, Task } from '@sluice/protocol';
import { freeLoopbackPort, waitFor } from '@sluice/testkit';

/** The built CLI, which runs the server here and the engines of the backend under test. */
export const SLUICE_BIN = fileURLToPath(new URL('../../../cli/bin/sluice.js', import.meta.url));

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
    const timer = setTimeout(() => reject(new Error(`no server:\n${output()}`)), 60_000);
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
