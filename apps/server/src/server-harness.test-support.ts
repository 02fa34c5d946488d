/**
 * A real server on a real port for tests, on a database from `@sluice/db/testing`, with a
 * capturing logger so tests can check what was logged.
 * @module
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { SERVER_DEFAULTS } from '@sluice/config';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import type { Build, SluiceClient, Task } from '@sluice/protocol';
import type { Database, DatabaseKind } from '@sluice/db';
import { createLogger } from '@sluice/log';
import { createServer } from './server.js';
import type { SluiceServer } from './server.js';
import type { ServerConfig } from './config.js';

export const ADMIN_TOKEN = 'slu_u_test-bootstrap-token-0123456789';

/**
 * The database of a test whose behaviour does not depend on its kind (HTTP, validation,
 * authorization, the services' own rules), for `useTestDatabases(ONE_KIND)` or, in a file of
 * tests on both kinds, `databases.test(name, fn, ONE_KIND)`. PostgreSQL: these tests take 1.3 to
 * 6 times as long on PGlite (a template loaded per test, every query on one connection), and
 * PostgreSQL here is the oldest the server supports (15; PGlite is 18). What the kind decides
 * stays on both (STYLE.md §9): concurrent requests (claims, numbering, deduplication, locks),
 * wake-ups, the driver's errors, the pool and readiness, several servers on one database.
 * PGlite's single connection (`db` used inside a transaction hangs there) is also exercised by
 * those tests, and by the e2e tests, which run the server on PGlite.
 */
export const ONE_KIND: { readonly kinds: readonly DatabaseKind[] } = { kinds: ['postgres'] };

export interface TestServer {
  server: SluiceServer;
  url: string;
  admin: SluiceClient;
  client(token: string): SluiceClient;
  logs(): string;
  close(): Promise<void>;
}

export async function startTestServer(
  database: Database,
  overrides: Partial<ServerConfig> = {},
  /** A fixed or test-driven clock, for time-dependent behaviour such as cron triggers. */
  options: { clock?: () => number } = {},
): Promise<TestServer> {
  const output = new PassThrough();
  let captured = '';
  output.on('data', (chunk: Buffer) => (captured += chunk.toString()));
  const config: ServerConfig = {
    port: 0,
    host: SERVER_DEFAULTS.host,
    dataDir: undefined,
    databaseUrl: undefined,
    bootstrapToken: ADMIN_TOKEN,
    secretKey: exportSecretKey(generateSecretKey()),
    publicUrl: 'http://control-plane.test',
    agentOfflineAfterMs: SERVER_DEFAULTS.agentOfflineAfterMs,
    limitsIntervalMs: SERVER_DEFAULTS.limitsIntervalMs,
    commitStatusIntervalMs: SERVER_DEFAULTS.commitStatusIntervalMs,
    taskLeaseMs: SERVER_DEFAULTS.taskLeaseMs,
    metricsPort: undefined,
    metricsHost: SERVER_DEFAULTS.host,
    // Cheap scrypt: tests check passwords by the dozen; the work counted is the same per check.
    passwordScrypt: { N: 1024, r: 8, p: 1 },
    ...overrides,
  };
  const server = await createServer({
    config,
    database,
    logger: createLogger({ destination: output, level: 'debug' }),
    clock: options.clock,
  });
  const url = await server.listen();
  return {
    server,
    url,
    admin: createClient({ baseUrl: url, token: ADMIN_TOKEN }),
    client: (token) => createClient({ baseUrl: url, token }),
    logs: () => captured,
    close: () => server.close(),
  };
}

export const SIMPLE_PIPELINE = [
  'version: "1.0"',
  'steps:',
  '  build:',
  '    image: alpine',
  '    commands: ["make"]',
  '  test:',
  '    image: alpine',
  '    commands: ["make test"]',
  '',
].join('\n');

export const LOCAL_RUNTIME = {
  metadata: { name: 'local' },
  runtimeScheduler: { type: 'LocalDocker' },
  dockerDaemonScheduler: { type: 'LocalDocker' },
};

/** `system/default/k8s` with the namespace it lacks: builds become Kubernetes tasks. */
export const KUBERNETES_RUNTIME = {
  metadata: { name: 'k8s' },
  extends: ['system/default/k8s'],
  runtimeScheduler: { cluster: { namespace: 'builds' } },
};

export interface SeedOptions {
  /** The account default runtime; `local` (LOCAL_RUNTIME) by default. */
  runtime?: { name: string; spec: Record<string, unknown> };
  /** Pipelines to create in project `web`; `app` by default. */
  pipelines?: string[];
  maxConcurrentBuilds?: number;
  variables?: Record<string, { value: string; secret: boolean }>;
  /** The pipelines' YAML; SIMPLE_PIPELINE by default. */
  yaml?: string;
}

/** A runtime (local by default) as the account default, project `web`, and its pipelines. */
export async function seedPipelines(t: TestServer, options: SeedOptions = {}) {
  const runtime = options.runtime ?? { name: 'local', spec: LOCAL_RUNTIME };
  await t.admin.call('createRuntimeEnvironment', { body: runtime });
  await t.admin.call('setDefaultRuntimeEnvironment', { params: { name: runtime.name } });
  await t.admin.call('createProject', { body: { name: 'web' } });
  const pipelines = [];
  for (const name of options.pipelines ?? ['app']) {
    const body = {
      name,
      yaml: options.yaml ?? SIMPLE_PIPELINE,
      maxConcurrentBuilds: options.maxConcurrentBuilds,
      variables: options.variables,
    };
    pipelines.push(await t.admin.call('createPipeline', { params: { project: 'web' }, body }));
  }
  return pipelines;
}

/** A new agent serving `runtimes`, as a client with its token. */
export async function agentClient(
  t: TestServer,
  name = 'agent-1',
  runtimes = ['local'],
): Promise<SluiceClient> {
  const { token } = await t.admin.call('createAgent', { body: { name, runtimes } });
  return t.client(token);
}

/** `seedPipelines` with one pipeline: the pipeline. */
export async function seedPipeline(t: TestServer, options: Omit<SeedOptions, 'pipelines'> = {}) {
  const [pipeline] = await seedPipelines(t, options);
  if (pipeline === undefined) throw new Error('seedPipelines created no pipeline');
  return pipeline;
}

/** Reports `task` carried out, as its agent would. */
export async function acknowledge(agent: SluiceClient, task: Task): Promise<void> {
  await agent.call('reportTaskStatus', {
    params: { taskId: task.id },
    body: { status: 'Success', statusRevision: task.statusRevision + 1 },
  });
}

/** Reports `task` failed with `reason`, retriable or for good, as its agent would. */
export async function reportFailure(
  agent: SluiceClient,
  task: Task,
  failure: { reason: string; isRetriable: boolean },
): Promise<void> {
  await agent.call('reportTaskStatus', {
    params: { taskId: task.id },
    body: { status: 'Error', statusRevision: task.statusRevision + 1, ...failure },
  });
}

/**
 * A new build of `pipelineId` whose RunEngine task a new agent took and acknowledged: the build
 * as created, and a client with its engine's token.
 */
export async function startEngine(
  t: TestServer,
  pipelineId: string,
  agentName?: string,
): Promise<{ build: Build; engine: SluiceClient }> {
  const agent = await agentClient(t, agentName);
  const build = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
  const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
  const task = tasks.find((x) => x.buildId === build.id);
  assert.ok(task !== undefined, 'no task for the build');
  await acknowledge(agent, task);
  return { build, engine: t.client(String(task.spec.engineToken)) };
}
