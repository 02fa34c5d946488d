/**
 * The runner agent against a real API server (no node: pods stay Pending, which is all these
 * tests need): a SIGKILL in the middle of a batch loses and duplicates nothing; objects of
 * finished builds are reclaimed, by stop tasks or, when those are lost, by the reaper; a burst
 * of builds stays within the concurrency bound (50 here, SLUICE_BURST_BUILDS; `npm run bench --
 * agent-burst` runs 200); a runtime whose service account lacks a permission is reported
 * unhealthy with the verb and resource.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { openDatabase, sql } from '@sluice/db';
import type { Database } from '@sluice/db';
import { TestDatabases } from '@sluice/db/testing';
import { AGENT_PERMISSIONS } from '@sluice/kube';
import { createNamespace, createServiceAccount } from '@sluice/kube/testing';
import type { SluiceClient } from '@sluice/protocol';
import { buildObjectName } from '@sluice/runtime-spec';
import { makeTempDir, useKubernetes } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import {
  buildObjects,
  createAgentToken,
  createKubeRuntime,
  expectedObjects,
  objectCount,
  NO_NODE_AGENT_ARGS,
  startAgentProcess,
  startControlPlane,
  waitForProbe,
  writeRuntimeFile,
} from './cluster-fixture.js';
import type { AgentProcess, ControlPlane } from './cluster-fixture.js';
import { createPipelines } from './control-plane-seed.js';

const cluster = useKubernetes({ nodes: false });
const NS = 'sluice-builds';
const RUNTIME = 'api/ci';
const YAML =
  'version: "1.0"\nsteps:\n  hello:\n    image: sluice/busybox:1\n    commands: ["echo hi"]\n';

const databases = TestDatabases.create();
let temp: TempDir;
let plane: ControlPlane;
let db: Database;
let admin: SluiceClient;
let agentToken: string;
let pipelineId: string;
const agents: AgentProcess[] = [];

before(async () => {
  await cluster.ready();
  temp = await makeTempDir('sluice-runner-api-');
  const target = await databases.prepare('postgres');
  db = await openDatabase(target);
  plane = await startControlPlane({
    database: target,
    logPath: join(temp.path, 'server.log'),
    env: { SLUICE_TASK_LEASE_MS: '10000' },
  });
  admin = plane.admin;
  await createNamespace(cluster(), NS);
  await createKubeRuntime(admin, { name: RUNTIME, namespace: NS, isDefault: true });
  ({ hello: pipelineId = '' } = await createPipelines(admin, 'runner', { hello: YAML }));
  agentToken = (await createAgentToken(admin, 'cluster-agent', [RUNTIME])).token;
});

after(async () => {
  for (const agent of agents) await agent.stop('SIGKILL');
  await plane?.stop();
  await db?.close();
  await databases.close();
  await temp?.cleanup();
});

function startAgent(args: string[], name: string): Promise<AgentProcess> {
  return startAgentProcess({
    serverUrl: plane.url,
    token: agentToken,
    logPath: join(temp.path, `${name}.log`),
    args: [
      '--kube-runtime',
      RUNTIME,
      '--kubeconfig',
      cluster().kubeconfigPath,
      '--poll-wait',
      '5',
      '--heartbeat-seconds',
      '2',
      ...NO_NODE_AGENT_ARGS,
      ...args,
    ],
  }).then((agent) => {
    agents.push(agent);
    return agent;
  });
}

async function createBuilds(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1)
    ids.push((await admin.call('createBuild', { params: { pipelineId }, body: {} })).id);
  return ids;
}

async function taskCounts(buildIds: string[]): Promise<Record<string, number>> {
  const rows = await db.db
    .selectFrom('tasks')
    .select(['status', sql<number>`count(*)`.as('n')])
    .where('build_id', 'in', buildIds)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

async function allTasksDone(buildIds: string[], expected: number): Promise<boolean> {
  const counts = await taskCounts(buildIds);
  assert.equal(counts.failed ?? 0, 0, `failed tasks: ${JSON.stringify(counts)}`);
  return counts.done === expected;
}

async function cancelAll(buildIds: string[]): Promise<void> {
  for (const buildId of buildIds) await admin.call('cancelBuild', { params: { buildId } });
}

test('an agent killed mid-batch and restarted leaves every object exactly once and every task reported', async () => {
  const agent = await startAgent(['--concurrency', '3', '--reap-seconds', '0'], 'kill-1');
  const builds = await createBuilds(30);
  await waitForProbe('some tasks done', async () =>
    (await agent.metric('sluice_agent_tasks_total', { outcome: 'success' })) >= 40
      ? true
      : undefined,
  );
  await agent.stop('SIGKILL');
  const midway = await taskCounts(builds);
  assert.ok((midway.done ?? 0) < 180, `the batch was already finished: ${JSON.stringify(midway)}`);

  await startAgent(['--concurrency', '3', '--reap-seconds', '0'], 'kill-2');
  // Leased tasks come back when their lease ends (SLUICE_TASK_LEASE_MS on the server).
  await waitForProbe('every task reported', () => allTasksDone(builds, 180), 240_000, 1000);
  for (const buildId of builds) {
    const objects = await buildObjects(cluster().kubeConfig, NS, buildId);
    assert.deepEqual(objects, expectedObjects(buildId));
  }
  assert.equal(objectCount(await buildObjects(cluster().kubeConfig, NS)), 30 * 5);

  await cancelAll(builds);
  await waitForProbe(
    "the cancelled builds' objects deleted",
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS)) === 0,
  );
  await waitForProbe('stop tasks reported', () => allTasksDone(builds, 180 + 30 * 5), 60_000, 500);
});

test('the reaper deletes the objects of finished builds whose stop tasks were lost, and of unknown builds', async () => {
  for (const agent of agents.splice(0)) await agent.stop('SIGKILL');
  const agent = await startAgent(['--reap-seconds', '0'], 'reap-1');
  const [buildId = ''] = await createBuilds(1);
  await waitForProbe(
    "the build's objects",
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS, buildId)) === 5,
  );
  await waitForProbe('its tasks reported', () => allTasksDone([buildId], 6), 30_000);
  await agent.stop('SIGKILL');
  await admin.call('cancelBuild', { params: { buildId } });
  // The stop tasks are lost (as if the database were restored from before them).
  await db.db
    .deleteFrom('tasks')
    .where('build_id', '=', buildId)
    .where('type', 'like', 'Delete%')
    .execute();
  // And objects of a build the control plane never heard of, labelled as the agent labels.
  const core = cluster().kubeConfig.makeApiClient(CoreV1Api);
  const model = await core.readNamespacedConfigMap({
    name: buildObjectName('dind-config', buildId),
    namespace: NS,
  });
  const labels = { ...model.metadata?.labels, 'sluice.io/build-id': 'ghost' };
  await core.createNamespacedConfigMap({
    namespace: NS,
    body: { metadata: { name: 'ghost', labels } },
  });

  await startAgent(['--reap-seconds', '1'], 'reap-2');
  await waitForProbe(
    'the reaper to delete both',
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS)) === 0,
  );
});

/** Builds in the burst: enough to hold the bound of 3 for a while (bench/agent-burst: 200). */
const BURST = Number(process.env.SLUICE_BURST_BUILDS) || 50;

test(`a burst of ${BURST} builds is handled within the concurrency bound`, async () => {
  for (const agent of agents.splice(0)) await agent.stop('SIGKILL');
  const agent = await startAgent(
    // A bound the agent reaches: with the thin Kubernetes client it finishes builds so fast
    // that a burst keeps only about 6 busy, so a bound of 10 would not be put to the test.
    [
      '--concurrency',
      '3',
      '--queue-size',
      String(BURST + 100),
      '--kube-qps',
      '500',
      '--kube-burst',
      '500',
    ],
    'burst',
  );
  const started = Date.now();
  const builds = await createBuilds(BURST);
  const tasks = BURST * 6;
  await waitForProbe(`${tasks} tasks reported`, () => allTasksDone(builds, tasks), 600_000, 1000);
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(`burst: ${BURST} builds, ${tasks} tasks in ${seconds.toFixed(1)} s\n`);
  assert.equal(await agent.metric('sluice_agent_builds_active_max'), 3);
  assert.equal(objectCount(await buildObjects(cluster().kubeConfig, NS)), BURST * 5);
  await cancelAll(builds);
  await waitForProbe(
    'every object of the burst deleted',
    async () => objectCount(await buildObjects(cluster().kubeConfig, NS)) === 0,
    300_000,
    1000,
  );
});

test('a runtime whose service account lacks a permission is unhealthy, naming the verb and resource; the agent stopped is offline at once', async () => {
  const token = await createServiceAccount(cluster(), {
    namespace: NS,
    name: 'limited',
    // Everything the agent needs but deleting pods.
    permissions: AGENT_PERMISSIONS.filter((p) => !(p.verb === 'delete' && p.resource === 'pods')),
  });
  await createKubeRuntime(admin, { name: 'api/limited', namespace: NS });
  const { agentId, token: limitedToken } = await createAgentToken(admin, 'limited-agent', [
    'api/limited',
  ]);
  const dir = join(temp.path, 'runtimes');
  writeRuntimeFile(dir, 'limited.runtime.yaml', {
    name: 'api/limited',
    host: cluster().server,
    namespace: NS,
    token,
    crt: readFileSync(cluster().caFile, 'utf8'),
  });
  const agent = await startAgentProcess({
    serverUrl: plane.url,
    token: limitedToken,
    logPath: join(temp.path, 'limited.log'),
    args: ['--config-dir', dir, '--heartbeat-seconds', '1', ...NO_NODE_AGENT_ARGS],
  });
  agents.push(agent);
  const health = await waitForProbe('the unhealthy report', async () => {
    const { items } = await admin.call('listAgents');
    return items.find((a) => a.id === agentId)?.health?.runtimes?.[0] ?? undefined;
  });
  assert.equal(health.name, 'api/limited');
  assert.equal(health.healthy, false);
  const permissions = health.checks?.find((c) => c.name === 'permissions');
  assert.equal(permissions?.ok, false, JSON.stringify(health));
  assert.match(permissions?.message ?? '', /delete pods/);
  assert.doesNotMatch(permissions?.message ?? '', /secrets|configmaps|persistentvolumeclaims/);
  assert.equal(await agent.metric('sluice_agent_runtime_healthy', { runtime: 'api/limited' }), 0);
  // Stopped (SIGTERM), it says so as it goes: offline at once, not after the heartbeat timeout.
  agents.splice(agents.indexOf(agent), 1);
  await agent.stop();
  const { items } = await admin.call('listAgents');
  const stopped = items.find((a) => a.id === agentId);
  assert.equal(stopped?.online, false, JSON.stringify(stopped));
  assert.ok(stopped?.health?.stoppedAt, JSON.stringify(stopped?.health));
});
