import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import type { Build, SluiceClient } from '@sluice/protocol';
import {
  seedPipeline,
  startEngine,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

/** A parallel block, a matrix (a parallel block of copies), an approval gate, a retried step. */
const TREE_PIPELINE = `version: "1.0"
steps:
  checks:
    type: parallel
    steps:
      lint:
        image: alpine
        commands: ["lint"]
      unit:
        image: alpine
        commands: ["unit"]
  tests:
    image: alpine
    commands: ["test"]
    matrix:
      image: [alpine, busybox]
  gate:
    type: pending-approval
  deploy:
    image: alpine
    commands: ["deploy"]
    retry:
      maxAttempts: 3
`;

const at = () => new Date().toISOString();

/** A build of TREE_PIPELINE whose engine token was handed out; the engine's client. */
async function startBuild(t: TestServer): Promise<{ build: Build; engine: SluiceClient }> {
  const pipeline = await seedPipeline(t);
  await t.admin.call('updatePipeline', {
    params: { pipelineId: pipeline.id },
    body: { yaml: TREE_PIPELINE },
  });
  const { build, engine } = await startEngine(t, pipeline.id);
  await engine.call('engineEvents', { body: { events: [{ type: 'build-started', at: at() }] } });
  return { build, engine };
}

function get(t: TestServer, buildId: string): Promise<Build> {
  return t.admin.call('getBuild', { params: { buildId } });
}

databases.test(
  'build steps follow the pipeline tree, and steps the engine adds are kept',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { build, engine } = await startBuild(t);
      assert.deepEqual(
        build.steps.map((s) => [s.position, s.name, s.parent, s.status, s.attempt]),
        [
          [0, 'checks', null, 'pending', 1],
          [1, 'lint', 'checks', 'pending', 1],
          [2, 'unit', 'checks', 'pending', 1],
          [3, 'tests', null, 'pending', 1],
          [4, 'tests_0', 'tests', 'pending', 1],
          [5, 'tests_1', 'tests', 'pending', 1],
          [6, 'gate', null, 'pending', 1],
          [7, 'deploy', null, 'pending', 1],
        ],
      );
      await engine.call('engineEvents', {
        body: {
          events: [
            { type: 'step-started', step: 'checks', at: at() },
            { type: 'step-started', step: 'lint', parent: 'checks', at: at() },
            { type: 'step-finished', step: 'lint', status: 'success', exitCode: 0, at: at() },
            { type: 'step-started', step: 'deploy', at: at() },
            { type: 'step-finished', step: 'deploy', status: 'failure', exitCode: 1, at: at() },
            { type: 'step-started', step: 'deploy', attempt: 2, at: at() },
            { type: 'step-started', step: 'build.on_fail', at: at() },
            { type: 'step-finished', step: 'build.on_fail', status: 'timeout', at: at() },
            { type: 'step-finished', step: 'pipeline.on_finish', status: 'skipped', at: at() },
          ],
        },
      });
      const steps = new Map((await get(t, build.id)).steps.map((s) => [s.name, s]));
      assert.equal(steps.get('lint')?.status, 'success');
      assert.equal(steps.get('checks')?.status, 'running');
      const deploy = steps.get('deploy');
      assert.deepEqual(
        [deploy?.status, deploy?.attempt, deploy?.exitCode, deploy?.finishedAt],
        ['running', 2, null, null],
        'a retry runs again and clears the failed attempt',
      );
      assert.deepEqual(
        ['build.on_fail', 'pipeline.on_finish'].map((name) => {
          const s = steps.get(name);
          return [s?.position, s?.parent, s?.status];
        }),
        [
          [8, null, 'timeout'],
          [9, null, 'skipped'],
        ],
        'hook steps are added after the pipeline steps',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'an approval step waits, is approved through the API, and the engine hears who approved it',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { build, engine } = await startBuild(t);
      await assert.rejects(
        t.admin.call('approveBuild', { params: { buildId: build.id }, body: {} }),
        (err: Error & { code?: string }) => {
          assert.equal(err.code, 'SLUICE_BUILD_NOT_PENDING_APPROVAL');
          assert.match(err.message, /is not waiting for approval \(it is running\)/);
          return true;
        },
      );
      await engine.call('engineEvents', {
        body: {
          events: [
            { type: 'step-started', step: 'gate', at: at() },
            {
              type: 'approval-requested',
              step: 'gate',
              timeoutMs: 3_600_000,
              finalState: 'denied',
              at: at(),
            },
          ],
        },
      });
      const waiting = await get(t, build.id);
      assert.equal(waiting.status, 'pending-approval');
      assert.equal(waiting.steps.find((s) => s.name === 'gate')?.status, 'pending-approval');
      await assert.rejects(
        t.admin.call('denyBuild', { params: { buildId: build.id }, body: { step: 'deploy' } }),
        /Step "deploy" of build \S+ is not waiting for approval/,
      );

      const control = engine.call('engineControl', { query: { after: 0, wait: 20 } });
      const approved = await t.admin.call('approveBuild', {
        params: { buildId: build.id },
        body: {},
      });
      assert.equal(approved.status, 'running');
      const gate = approved.steps.find((s) => s.name === 'gate');
      assert.deepEqual([gate?.status, gate?.answeredBy], ['running', 'admin']);
      const { messages } = await control;
      assert.deepEqual(
        messages.map((m) => [m.kind, m.step, m.by]),
        [['approve', 'gate', 'admin']],
      );
      await assert.rejects(
        t.admin.call('approveBuild', { params: { buildId: build.id }, body: {} }),
        /is not waiting for approval/,
        'an answered step cannot be answered again',
      );

      await engine.call('engineEvents', {
        body: {
          events: [
            { type: 'step-finished', step: 'gate', status: 'success', at: at() },
            { type: 'build-finished', status: 'success', at: at() },
          ],
        },
      });
      const done = await get(t, build.id);
      assert.equal(done.status, 'success');
      assert.equal(done.steps.find((s) => s.name === 'gate')?.answeredBy, 'admin');
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a denied step goes to the engine as deny; a timeout decided by the engine resumes the build',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { build, engine } = await startBuild(t);
      const request = (step: string) => ({
        type: 'approval-requested' as const,
        step,
        timeoutMs: 1000,
        finalState: 'denied' as const,
        at: at(),
      });
      await engine.call('engineEvents', { body: { events: [request('gate'), request('lint')] } });
      const denied = await t.admin.call('denyBuild', {
        params: { buildId: build.id },
        body: { step: 'gate' },
      });
      assert.equal(denied.status, 'pending-approval', 'lint still waits');
      const { messages } = await engine.call('engineControl', { query: { after: 0, wait: 0 } });
      assert.deepEqual(
        messages.map((m) => [m.kind, m.step]),
        [['deny', 'gate']],
      );
      // Nobody answers lint: the engine's timeout decides it.
      await engine.call('engineEvents', {
        body: {
          events: [
            {
              type: 'step-finished',
              step: 'lint',
              status: 'denied',
              reason: 'timed out',
              at: at(),
            },
          ],
        },
      });
      const resumed = await get(t, build.id);
      assert.equal(resumed.status, 'running');
      assert.equal(resumed.steps.find((s) => s.name === 'lint')?.status, 'denied');

      await engine.call('engineEvents', { body: { events: [request('deploy')] } });
      await t.admin.call('cancelBuild', { params: { buildId: build.id } });
      await engine.call('engineEvents', {
        body: { events: [{ type: 'build-finished', status: 'terminated', at: at() }] },
      });
      const ended = await get(t, build.id);
      assert.equal(ended.status, 'terminated');
      assert.equal(
        ended.steps.find((s) => s.name === 'deploy')?.status,
        'terminated',
        'a step still waiting when the build ends is terminated',
      );
    } finally {
      await t.close();
    }
  },
);
