/**
 * What the e2e tests make on a control plane through its API before they start: the local
 * runtime environment, a project with its pipelines, and tasks acknowledged as an agent would;
 * and a build's engine run as the agent runs it.
 * @module
 */
import type { TestDatabases } from '@sluice/db/testing';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import type { SluiceClient, Task } from '@sluice/protocol';
import { dockerHostAddress, startGitHttpServer } from '@sluice/testkit';
import type { GitHttpServer } from '@sluice/testkit';
import { runSluice, startServer } from './cli-harness.js';
import type { RunningServer } from './cli-harness.js';

/** The runtime environment `local` (this machine's Docker engine); the account default if asked. */
export async function createLocalRuntime(
  admin: SluiceClient,
  options: { description?: string; isDefault?: boolean } = {},
): Promise<void> {
  const spec = {
    metadata: { name: 'local' },
    runtimeScheduler: { type: 'LocalDocker' },
    dockerDaemonScheduler: { type: 'LocalDocker' },
  };
  const body = { name: 'local', description: options.description, spec };
  await admin.call('createRuntimeEnvironment', { body });
  if (options.isDefault) {
    await admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
  }
}

/** The project and its pipelines (name → YAML), each with `variables`; their ids by name. */
export async function createPipelines(
  admin: SluiceClient,
  project: string,
  pipelines: Record<string, string>,
  options: { variables?: Record<string, { value: string; secret?: boolean }> } = {},
): Promise<Record<string, string>> {
  await admin.call('createProject', { body: { name: project } });
  const ids: Record<string, string> = {};
  for (const [name, yaml] of Object.entries(pipelines)) {
    const body = { name, yaml, variables: options.variables };
    ids[name] = (await admin.call('createPipeline', { params: { project }, body })).id;
  }
  return ids;
}

/** Reports each task done, as the agent's task runner does. */
export async function acknowledgeTasks(
  agent: SluiceClient,
  tasks: readonly Pick<Task, 'id' | 'statusRevision'>[],
): Promise<void> {
  for (const task of tasks) {
    await agent.call('reportTaskStatus', {
      params: { taskId: task.id },
      body: { status: 'Success', statusRevision: task.statusRevision + 1 },
    });
  }
}

/**
 * Takes the build's RunEngine task as the agent would (acknowledging what it polls) and runs
 * `sluice engine` for it to its end; its output. `spoolDir` keeps the engine's log spool out of
 * the repository, the working directory every test file shares.
 */
export async function runBuildEngine(
  agent: SluiceClient,
  buildId: string,
  options: { serverUrl: string; spoolDir: string },
): Promise<string> {
  for (let round = 0; round < 10; round++) {
    const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
    await acknowledgeTasks(agent, tasks);
    const task = tasks.find((t) => t.type === 'RunEngine' && t.buildId === buildId);
    if (task === undefined) continue;
    const result = await runSluice(['engine'], {
      env: {
        SLUICE_SERVER_URL: options.serverUrl,
        SLUICE_ENGINE_TOKEN: String(task.spec.engineToken),
        SLUICE_LOG_SPOOL_DIR: options.spoolDir,
      },
    });
    return result.stdout + result.stderr;
  }
  throw new Error(`no RunEngine task for build ${buildId}`);
}

/** A private git server, a control plane on PostgreSQL with the local runtime as its default, an agent. */
export interface GitControlPlane {
  git: GitHttpServer;
  /** `acme/repo.git` under the git server's root, as the build's containers reach it. */
  repoUrl: string;
  server: RunningServer;
  admin: SluiceClient;
  agent: SluiceClient;
  /** The CLI's environment for that server. */
  env: NodeJS.ProcessEnv;
}

/**
 * Serves the repositories under `root` over HTTP with basic auth (`ci-bot`, `gitToken`), and
 * starts a control plane whose admin token is `token`, with the local runtime and an agent.
 */
export async function startGitControlPlane(options: {
  root: string;
  databases: TestDatabases;
  token: string;
  gitToken: string;
}): Promise<GitControlPlane> {
  const { root, token } = options;
  const git = await startGitHttpServer({ root, username: 'ci-bot', password: options.gitToken });
  const repoUrl = `${git.urlVia(await dockerHostAddress())}/acme/repo.git`;
  const server = await startServer(await options.databases.prepare('postgres'), {
    SLUICE_BOOTSTRAP_TOKEN: token,
    SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
  });
  const admin = createClient({ baseUrl: server.url, token });
  await createLocalRuntime(admin, { isDefault: true });
  const agentToken = (
    await admin.call('createAgent', { body: { name: 'a1', runtimes: ['local'] } })
  ).token;
  const agent = createClient({ baseUrl: server.url, token: agentToken });
  return {
    git,
    repoUrl,
    server,
    admin,
    agent,
    env: { SLUICE_SERVER: server.url, SLUICE_TOKEN: token },
  };
}
