/**
 * Agent chaos: a burst of cheap builds on the local runtime while `sluice agent` is SIGKILLed and
 * started again, over and over, mid-poll, mid-start and mid-acknowledgement. Engines outlive
 * their agent, task leases hand an unacknowledged task out again, and a `RunEngine` whose
 * engine already runs (or whose build has ended) starts nothing: so no build is lost and none
 * runs twice (each run of a build's step leaves a file in a host directory: see
 * replicas-fixture.ts). 50 builds and 20 kills here; the numbers (200 builds, 100 kills)
 * are `npm run bench -- agent-chaos` (SLUICE_CHAOS_BUILDS and SLUICE_CHAOS_KILLS set them).
 * @module
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { TestDatabases } from '@sluice/db/testing';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { createClient } from '@sluice/protocol';
import { ensureDockerEngine, ensureTestImages, makeTempDir } from '@sluice/testkit';
import type { TempDir } from '@sluice/testkit';
import { kill, startServer } from './cli-harness.js';
import type { RunningCli, RunningServer } from './cli-harness.js';
import { createPipelines } from './control-plane-seed.js';
import {
  allBuilds,
  createRecordingRuntime,
  freePort,
  notRunOnce,
  recordingPipeline,
  startLocalAgent,
  waitAllFinished,
} from './replicas-fixture.js';

const TOKEN = 'slu_u_agent-chaos-token-0123456789';
const PROJECT = `chaos${process.pid}`;
const BUILDS = Number(process.env.SLUICE_CHAOS_BUILDS ?? 50);
const KILLS = Number(process.env.SLUICE_CHAOS_KILLS ?? 20);
/** Engines at once: what two cores carry beside the server, PostgreSQL and Docker. */
const CONCURRENCY = 4;

const databases = TestDatabases.create({ kinds: ['postgres'] });
const temps: TempDir[] = [];
let server: RunningServer | undefined;
let agent: RunningCli | undefined;

before(async () => {
  await ensureDockerEngine();
  await ensureTestImages();
});

after(async () => {
  agent?.child.kill('SIGKILL');
  if (server) await kill(server);
  await databases.close();
  for (const temp of temps) await temp.cleanup();
  spawnSync('docker', ['volume', 'rm', '-f', `sluice-volume-${PROJECT}-app`]);
});

async function tempDir(prefix: string): Promise<string> {
  const temp = await makeTempDir(prefix);
  temps.push(temp);
  return temp.path;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test(
  `${BUILDS} builds while the agent is SIGKILLed ${KILLS} times: none lost, none run twice`,
  { timeout: 600_000 },
  async (t) => {
    const target = await databases.prepare('postgres');
    const port = await freePort();
    const env = {
      SLUICE_BOOTSTRAP_TOKEN: TOKEN,
      SLUICE_SECRET_KEY: exportSecretKey(generateSecretKey()),
      SLUICE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      SLUICE_TASK_LEASE_MS: '3000',
    };
    server = await startServer(target, env, port);
    const url = server.url;
    const admin = createClient({ baseUrl: url, token: TOKEN });
    const runsDir = await tempDir('sluice-runs-');
    await createRecordingRuntime(admin, runsDir, CONCURRENCY);
    const { app = '' } = await createPipelines(admin, PROJECT, { app: recordingPipeline() });
    const { token } = await admin.call('createAgent', {
      body: { name: 'a1', runtimes: ['local'] },
    });
    const stateDir = await tempDir('sluice-agent-');
    const start = () =>
      startLocalAgent({ serverUrl: url, token, stateDir, concurrency: CONCURRENCY });

    const startedAt = Date.now();
    const created: string[] = [];
    const burst = (async () => {
      for (let i = 0; i < BUILDS; i += 10) {
        const batch = Array.from({ length: Math.min(10, BUILDS - i) }, () =>
          admin.call('createBuild', { params: { pipelineId: app }, body: {} }),
        );
        for (const build of await Promise.all(batch)) created.push(build.id);
      }
    })();

    let kills = 0;
    let finished = false;
    const done = burst.then(() => waitAllFinished(admin, 540_000, BUILDS));
    void done.then(
      () => (finished = true),
      () => (finished = true),
    );
    while (kills < KILLS && !finished) {
      agent = start();
      // Anywhere from mid-start to a few polls in.
      await sleep(300 + Math.floor(Math.random() * 1200));
      const exited = agent.done;
      agent.child.kill('SIGKILL');
      await exited;
      kills += 1;
    }
    agent = start();
    const builds = await done;
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    // The figure docs/replicas.md reports; not an assertion.
    t.diagnostic(`agent chaos: ${BUILDS} builds, ${kills} agent kills, ${seconds} s`);

    assert.equal(builds.length, BUILDS, 'as many builds as were created');
    const notSuccess = builds.filter((b) => b.status !== 'success');
    assert.deepEqual(
      notSuccess.map((b) => `${b.id} ${b.status}: ${b.reason ?? ''}`),
      [],
      'every build succeeded',
    );
    const ids = (await allBuilds(admin)).map((b) => b.id);
    assert.deepEqual([...ids].sort(), [...created].sort(), 'the builds are the ones created');
    assert.deepEqual(notRunOnce(ids, runsDir), [], 'every build ran exactly once');
    assert.equal(kills, KILLS, 'every kill fell within the burst');
  },
);
