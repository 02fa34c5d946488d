/**
 * What the tests of Kubernetes builds share: a clock they move past a task lease, an agent that
 * takes tasks, the build Secret of a task list, and a build of another account
 * (there is no API to make a second account, so it is written as rows).
 * @module
 */
import assert from 'node:assert/strict';
import type { Database } from '@sluice/db';
import type { SluiceClient, Task } from '@sluice/protocol';
import { BUILD_SECRET_KEYS } from '@sluice/runtime-spec';
import {
  agentClient,
  KUBERNETES_RUNTIME,
  seedPipeline,
  startTestServer,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';
import type { ServerConfig } from './config.js';

export interface KubernetesSetup {
  t: TestServer;
  agent: SluiceClient;
  pipelineId: string;
  /** Moves the server's clock forward, e.g. past a task lease. */
  advance: (ms: number) => void;
}

/** A server whose default runtime is KUBERNETES_RUNTIME, one pipeline, and an agent serving it. */
export async function startKubernetesServer(
  database: Database,
  overrides: Partial<ServerConfig> = {},
  runtime: Record<string, unknown> = KUBERNETES_RUNTIME,
): Promise<KubernetesSetup> {
  let offset = 0;
  const t = await startTestServer(database, overrides, { clock: () => Date.now() + offset });
  try {
    const pipeline = await seedPipeline(t, { runtime: { name: 'k8s', spec: runtime } });
    const agent = await agentClient(t, 'kube-agent', ['k8s']);
    return { t, agent, pipelineId: pipeline.id, advance: (ms) => (offset += ms) };
  } catch (err) {
    await t.close();
    throw err;
  }
}

export async function poll(agent: SluiceClient, max = 50): Promise<Task[]> {
  return (await agent.call('pollTasks', { query: { wait: 0, max } })).tasks;
}

/** `[type, metadata.name or spec.name]` of each task, for one readable assertion. */
export function summary(tasks: readonly Task[]): [string, string][] {
  return tasks.map((task) => {
    const metadata = task.spec.metadata as { name?: string } | undefined;
    return [task.type, String(metadata?.name ?? task.spec.name)];
  });
}

/** The `stringData` of the CreateSecret among `tasks`. */
export function secretData(tasks: readonly Task[]): Record<string, string> {
  const secret = tasks.find((task) => task.type === 'CreateSecret');
  assert.ok(secret, `no CreateSecret among ${tasks.map((task) => task.type).join(', ')}`);
  const data = secret.spec.stringData as Record<string, string>;
  assert.ok(data[BUILD_SECRET_KEYS.engineToken], 'the Secret carries the engine token');
  return data;
}

/** The engine token inside the build Secret among `tasks`, as a client. */
export function engineOf(t: TestServer, tasks: readonly Task[]): SluiceClient {
  return t.client(secretData(tasks)[BUILD_SECRET_KEYS.engineToken] ?? '');
}

/** A build of a second account, written as rows: its id. */
export async function foreignBuild(database: Database): Promise<string> {
  const db = database.db;
  await db.insertInto('accounts').values({ id: 'acc_other', name: 'other' }).execute();
  await db
    .insertInto('projects')
    .values({ id: 'prj_other', account_id: 'acc_other', name: 'web' })
    .execute();
  await db
    .insertInto('pipelines')
    .values({
      id: 'pip_other',
      account_id: 'acc_other',
      project_id: 'prj_other',
      name: 'app',
      yaml: 'version: "1.0"\nsteps: {}\n',
    })
    .execute();
  await db
    .insertInto('builds')
    .values({
      id: 'bld_other',
      account_id: 'acc_other',
      pipeline_id: 'pip_other',
      number: 1,
      status: 'running',
      trigger: 'manual',
    })
    .execute();
  return 'bld_other';
}
