/**
 * Two `sluice server` replicas on one PostgreSQL, behind a load balancer, with one
 * `sluice agent --local-runtime` and its engines going through the balancer. Both replicas start
 * at once on an empty database (migrations and the admin made once); builds created on either
 * are elected once and run once (each run leaves a file in a host directory: see
 * replicas-fixture.ts); a build's log followed from the replica its engine does not talk to
 * shows every line, in order; and with one replica SIGKILLed in the middle of a burst of builds
 * created round-robin on both, every acknowledged build ends `success` and none runs twice.
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { openDatabase, sql } from '@sluice/db';
import { TestDatabases } from '@sluice/db/testing';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import type { SluiceClient } from '@sluice/protocol';
import { ensureDockerEngine, ensureTestImages, makeTempDir } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { kill, startServer } from './cli-harness.js';
import type { RunningCli, RunningServer } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';
import { streamLog } from './log-stream.js';
import {
  allBuilds,
  createRecordingRuntime,
  notRunOnce,
  recordingPipeline,
  roundRobin,
  startLoadBalancer,
  startLocalAgent,
  waitAllFinished,
} from './replicas-fixture.js';
import type { LoadBalancer } from './replicas-fixture.js';

const TOKEN = 'slu_u_two-servers-token-0123456789';
const PROJECT = `rep${process.pid}`;
/** Builds in the burst of which one replica dies; halfway through it is killed. */
const BURST = Number(process.env.SLUICE_REPLICAS_BURST ?? 40);

const databases = TestDatabases.create({ kinds: ['postgres'] });
const temps: TempDir[] = [];
const servers: RunningServer[] = [];
const agents: RunningCli[] = [];
let balancer: LoadBalancer | undefined;

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
});

after(async () => {
  for (const agent of agents) agent.child.kill('SIGKILL');
  for (const server of servers)
    if (server.child.exitCode === null && server.child.signalCode === null) await kill(server);
  await balancer?.close();
  await databases.close();
  for (const temp of temps) await temp.cleanup();
  for (const name of ['app', 'talk'])
    spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-${name}`]);
});

interface Replicas {
  a: RunningServer;
  b: RunningServer;
  lb: LoadBalancer;
  admin: SluiceClient;
  runsDir: string;
  pipelines: Record<string, string>;
  databaseUrl: string;
}

/** Two servers started together on an empty database, the balancer, the runtime and an agent. */
async function startReplicas(): Promise<Replicas> {
  const target = await databases.prepare('postgres', { empty: true });
  const lb = await startLoadBalancer([]);
  balancer = lb;
  const env = {
    SLUICE_BOOTSTRAP_TOKEN: TOKEN,
    // What every replica must share besides the database: the key of secrets at rest.
    SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
    SLUICE_PUBLIC_URL: lb.url,
    SLUICE_TASK_LEASE_MS: '5000',
  };
  const [a, b] = await Promise.all([startServer(target, env), startServer(target, env)]);
  servers.push(a, b);
  lb.setBackends([a.url, b.url]);
  const admin = createClient({ baseUrl: a.url, token: TOKEN });
  const runs = await makeTempDir('sluice-runs-');
  temps.push(runs);
  await createRecordingRuntime(admin, runs.path, 4);
  const pipelines = await createPipelines(admin, PROJECT, {
    app: recordingPipeline(),
    talk: recordingPipeline(40),
  });
  const { token } = await admin.call('createAgent', { body: { name: 'a1', runtimes: ['local'] } });
  const state = await makeTempDir('sluice-agent-');
  temps.push(state);
  agents.push(startLocalAgent({ serverUrl: lb.url, token, stateDir: state.path, concurrency: 4 }));
  return { a, b, lb, admin, runsDir: runs.path, pipelines, databaseUrl: target.url ?? '' };
}

/** Builds whose RunEngine task is not exactly one: a build elected twice would have two. */
async function notElectedOnce(databaseUrl: string, buildIds: readonly string[]) {
  const database = await openDatabase({ url: databaseUrl, migrate: false });
  try {
    const rows = await database.db
      .selectFrom('tasks')
      .select(['build_id', sql<number>`count(*)`.as('n')])
      .where('type', '=', 'RunEngine')
      .groupBy('build_id')
      .execute();
    const counts = new Map(rows.map((r) => [r.build_id, Number(r.n)]));
    return buildIds
      .filter((id) => counts.get(id) !== 1)
      .map((id) => `${id}×${counts.get(id) ?? 0}`);
  } finally {
    await database.close();
  }
}

test(
  'two replicas: builds made on either run once, a log is followed from the replica the engine does not use, and one replica killed mid-burst loses nothing',
  { timeout: 480_000 },
  async () => {
    const r = await startReplicas();
    const clientA = createClient({ baseUrl: r.a.url, token: TOKEN });
    const clientB = createClient({ baseUrl: r.b.url, token: TOKEN });

    // Engines talk to A only; the log is followed from B.
    r.lb.setBackends([r.a.url]);
    const talk = await clientB.call('createBuild', {
      params: { pipelineId: r.pipelines.talk ?? '' },
      body: {},
    });
    const followed = await streamLog(r.b.url, TOKEN, talk.id);
    const expected = Array.from({ length: 40 }, (_, i) => `[record] line ${i + 1}`);
    assert.deepEqual(
      followed.filter((l) => l.startsWith('[record] line')),
      expected,
      'the log followed from replica B, whose engine posted to replica A',
    );
    assert.equal(
      (await clientA.call('getBuild', { params: { buildId: talk.id } })).status,
      'success',
    );

    // The burst, through both replicas; B dies halfway.
    r.lb.setBackends([r.a.url, r.b.url]);
    const create = roundRobin([r.a.url, r.b.url], TOKEN);
    const acknowledged: string[] = [];
    let killed: Promise<void> | undefined;
    const pipelineId = r.pipelines.app ?? '';
    for (let i = 0; i < BURST; i += 4) {
      const made = await Promise.allSettled(
        [0, 1, 2, 3].map(() =>
          create((c) => c.call('createBuild', { params: { pipelineId }, body: {} })),
        ),
      );
      for (const m of made) if (m.status === 'fulfilled') acknowledged.push(m.value.id);
      if (killed === undefined && i >= BURST / 2) killed = kill(r.b);
    }
    await killed;
    assert.ok(acknowledged.length >= BURST - 4, `acknowledged ${acknowledged.length} of ${BURST}`);

    const builds = await waitAllFinished(clientA, 240_000, acknowledged.length + 1);
    const failed = builds.filter((b) => b.status !== 'success');
    assert.deepEqual(
      failed.map((b) => `${b.id} ${b.status}: ${b.reason ?? ''}`),
      [],
      'every build succeeded',
    );
    const ids = (await allBuilds(clientA)).map((b) => b.id);
    for (const id of acknowledged) assert.ok(ids.includes(id), `acknowledged build ${id} lost`);
    assert.deepEqual(await notElectedOnce(r.databaseUrl, ids), [], 'every build elected once');
    assert.deepEqual(notRunOnce(ids, r.runsDir), [], 'every build ran exactly once');
  },
);
