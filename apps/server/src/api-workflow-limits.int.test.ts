/**
 * Each of a runtime's `workflowLimits` on a build that exceeds it, on the real server (on
 * PostgreSQL: the limits are decided in the server's code, on its clock, not by the database)
 * with the agent and engine APIs driven over HTTP as an agent and an engine would. Limits are a
 * second or two and the limits pass runs every 100 ms, so no clock is faked; only the post-steps
 * limit, counted in minutes, and the time a control plane is down run on a clock the test moves.
 * @module
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { useTestDatabases } from '@sluice/db/testing';
import type { Database } from '@sluice/db';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import type { WorkflowLimits } from '@sluice/runtime-spec';
import type { Build, SluiceClient } from '@sluice/protocol';
import {
  acknowledge,
  LOCAL_RUNTIME,
  seedPipeline,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';
import { activeBuildClocks } from './services/builds/build-rows.js';

const databases = useTestDatabases(ONE_KIND);
const FAST = { limitsIntervalMs: 100 };

function limitedRuntime(limits: WorkflowLimits) {
  const spec = {
    ...LOCAL_RUNTIME,
    runtimeScheduler: { type: 'LocalDocker', workflowLimits: limits },
  };
  return { name: 'local', spec };
}

interface Started {
  build: Build;
  agent: SluiceClient;
  agentToken: string;
  engineToken: string;
  engine: SluiceClient;
}

/** A build handed to a new agent, its RunEngine acknowledged, and its engine's client. */
async function handOut(t: TestServer, limits: WorkflowLimits): Promise<Started> {
  const pipeline = await seedPipeline(t, { runtime: limitedRuntime(limits) });
  const { token: agentToken } = await t.admin.call('createAgent', {
    body: { name: 'agent-1', runtimes: ['local'] },
  });
  const agent = t.client(agentToken);
  const build = await t.admin.call('createBuild', {
    params: { pipelineId: pipeline.id },
    body: {},
  });
  const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
  const task = tasks.find((x) => x.buildId === build.id);
  assert.ok(task !== undefined, 'no task for the build');
  await acknowledge(agent, task);
  const engineToken = String(task.spec.engineToken);
  return { build, agent, agentToken, engineToken, engine: t.client(engineToken) };
}

const at = () => new Date().toISOString();

/** The engine starts the build and its first step. */
async function startSteps(engine: SluiceClient): Promise<void> {
  const events = [
    { type: 'build-started' as const, at: at() },
    { type: 'step-started' as const, step: 'build', at: at() },
  ];
  await engine.call('engineEvents', { body: { events } });
}

/** Waits on the engine's control channel for a cancel; resolves with the time it came. */
async function waitForCancel(engine: SluiceClient): Promise<number> {
  const started = Date.now();
  for (;;) {
    const { messages } = await engine.call('engineControl', { query: { after: 0, wait: 5 } });
    if (messages.some((m) => m.kind === 'cancel')) return Date.now();
    assert.ok(Date.now() - started < 20_000, 'no cancel came');
  }
}

/** What an engine's own cancel reports: the build `terminated`. */
async function reportTerminated(engine: SluiceClient): Promise<void> {
  const finished = {
    type: 'build-finished' as const,
    status: 'terminated' as const,
    reason: 'The build was cancelled',
    at: at(),
  };
  await engine.call('engineEvents', { body: { events: [finished] } });
}

/** What an engine does with a cancel: waits for it, then reports the build `terminated`. */
async function obeyCancel(engine: SluiceClient): Promise<void> {
  await waitForCancel(engine);
  await reportTerminated(engine);
}

async function waitFor(
  t: TestServer,
  buildId: string,
  done: (build: Build) => boolean,
): Promise<Build> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const build = await t.admin.call('getBuild', { params: { buildId } });
    if (done(build)) return build;
    assert.ok(Date.now() < deadline, `build is still ${build.status} (${build.reason ?? ''})`);
    await sleep(50);
  }
}

const finished = (build: Build) => build.finishedAt !== null;

/** The stop task the agent is given for the build: its engine is removed. */
async function assertStopTask(agent: SluiceClient, buildId: string): Promise<void> {
  const { tasks } = await agent.call('pollTasks', { query: { wait: 10 } });
  assert.deepEqual(
    tasks.map((task) => [task.type, task.buildId]),
    [['StopEngine', buildId]],
  );
}

/** Log lines, one chunk every `everyMs`, for `forMs` or until `signal` aborts. */
async function logFor(
  engine: SluiceClient,
  forMs: number,
  everyMs = 300,
  signal?: AbortSignal,
): Promise<number> {
  let seq = 0;
  for (const end = Date.now() + forMs; Date.now() < end && signal?.aborted !== true; seq += 1) {
    const lines = [{ step: 'build', stream: 'stdout' as const, line: `line ${seq}`, at: at() }];
    await engine.call('engineLog', { body: { seq, lines } });
    await sleep(everyMs, undefined, { signal }).catch(() => undefined);
  }
  return seq;
}

databases.test(
  'MAXIMUM_ELECTED_STATE_AGE_ALLOWED: a build whose engine never starts ends error, across a server restart',
  async (database: Database) => {
    const config = { ...FAST, secretKey: exportSecretKey(generateSecretKey()) };
    // The first server holds no pass long enough: the second finds the build in the database.
    const first = await startTestServer(database, { ...config, limitsIntervalMs: 60_000 });
    let started: Started;
    try {
      started = await handOut(first, { MAXIMUM_ELECTED_STATE_AGE_ALLOWED: 1 });
    } finally {
      await first.close();
    }
    const t = await startTestServer(database, config);
    try {
      const build = await waitFor(t, started.build.id, finished);
      assert.equal(build.status, 'error');
      assert.equal(
        build.reason,
        'stopped: the engine did not start within 1 s of the build being handed to its runtime (MAXIMUM_ELECTED_STATE_AGE_ALLOWED)',
      );
      await assertStopTask(t.client(started.agentToken), build.id);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a limits pass reads every running build, and an elected one only once it is old enough for a limit',
  async (database) => {
    const t = await startTestServer(database, { limitsIntervalMs: 60_000 });
    try {
      const { build: running, engine } = await handOut(t, {});
      await startSteps(engine);
      // Elected for the agent, which does not come for it: it waits, as a queue of them would.
      const elected = await t.admin.call('createBuild', {
        params: { pipelineId: running.pipelineId },
        body: {},
      });
      const read = async (electedCreatedBefore?: Date) =>
        (await activeBuildClocks(database.db, electedCreatedBefore)).map((row) => row.id).sort();
      assert.deepEqual(await read(), [running.id]);
      assert.deepEqual(await read(new Date(Date.now() - 60_000)), [running.id]);
      assert.deepEqual(await read(new Date(Date.now() + 60_000)), [elected.id, running.id].sort());
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS: an engine that starts no step is told to stop; the build ends error',
  async (database) => {
    const t = await startTestServer(database, FAST);
    try {
      const { build, agent, engine } = await handOut(t, {
        MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS: 1,
      });
      await engine.call('engineEvents', {
        body: { events: [{ type: 'build-started', at: at() }] },
      });
      await obeyCancel(engine);
      const ended = await waitFor(t, build.id, finished);
      assert.equal(ended.status, 'error');
      assert.equal(
        ended.reason,
        'stopped: no step started within 1 s of the engine starting (MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS)',
      );
      await assertStopTask(agent, build.id);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION: a build still logging at its maximum age is stopped',
  async (database) => {
    const t = await startTestServer(database, FAST);
    try {
      const { build, agent, engine } = await handOut(t, {
        MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION: 2,
      });
      await startSteps(engine);
      // The engine prints until the cancel comes, and only then reports the build ended (its
      // token is revoked once it has): output does not keep an old build alive.
      const stopLogging = new AbortController();
      const logging = logFor(engine, 60_000, 300, stopLogging.signal);
      const cancelledAt = await waitForCancel(engine);
      stopLogging.abort();
      assert.ok((await logging) >= 1, 'the build printed nothing before it was stopped');
      await reportTerminated(engine);
      const age = cancelledAt - Date.parse(build.createdAt);
      assert.ok(age >= 2000, `stopped at an age of ${age} ms, before its maximum of 2 s`);
      const ended = await waitFor(t, build.id, finished);
      assert.equal(ended.status, 'terminated');
      assert.equal(
        ended.reason,
        'stopped: the build reached the maximum age of 2 s (MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION)',
      );
      await assertStopTask(agent, build.id);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'TIME_INACTIVE_UNTIL_TERMINATION: a build logging runs on; once it prints nothing for the limit it is stopped',
  async (database) => {
    const t = await startTestServer(database, FAST);
    try {
      const { build, agent, engine } = await handOut(t, { TIME_INACTIVE_UNTIL_TERMINATION: 2 });
      await startSteps(engine);
      // Twice the limit with output every 300 ms: never inactive for two seconds (a limit of
      // one second could pass on a loaded machine between two lines).
      const cancelled = obeyCancel(engine);
      await logFor(engine, 4000);
      assert.equal(
        (await t.admin.call('getBuild', { params: { buildId: build.id } })).status,
        'running',
      );
      await cancelled;
      const ended = await waitFor(t, build.id, finished);
      assert.equal(ended.status, 'terminated');
      assert.equal(
        ended.reason,
        'stopped: no log output for 2 s (TIME_INACTIVE_UNTIL_TERMINATION)',
      );
      await assertStopTask(agent, build.id);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY marks a silent engine, a heartbeat lifts it, and TIME_ENGINE_INACTIVE_UNTIL_TERMINATION ends the build error',
  async (database) => {
    const t = await startTestServer(database, FAST);
    try {
      const { build, agent, engine } = await handOut(t, {
        TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY: 1,
        TIME_ENGINE_INACTIVE_UNTIL_TERMINATION: 3,
      });
      await startSteps(engine);
      const unhealthy = await waitFor(t, build.id, (b) => b.reason !== null);
      assert.equal(unhealthy.status, 'running');
      assert.equal(
        unhealthy.reason,
        'unhealthy: no report from the engine for 1 s (TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY)',
      );
      await engine.call('engineHeartbeat', { body: {} });
      const healthy = await waitFor(t, build.id, (b) => b.reason === null);
      assert.equal(healthy.status, 'running');
      const ended = await waitFor(t, build.id, finished);
      assert.equal(ended.status, 'error');
      assert.equal(
        ended.reason,
        'stopped: no report from the engine for 3 s (TIME_ENGINE_INACTIVE_UNTIL_TERMINATION)',
      );
      await assertStopTask(agent, build.id);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'MAXIMUM_TERMINATING_STATE_AGE_ALLOWED: a cancelled build whose engine goes on working is ended and its engine stopped',
  async (database) => {
    const t = await startTestServer(database, FAST);
    try {
      const { build, agent, engine } = await handOut(t, {
        MAXIMUM_TERMINATING_STATE_AGE_ALLOWED: 1,
      });
      await startSteps(engine);
      await t.admin.call('cancelBuild', { params: { buildId: build.id } });
      // The engine ignores the cancel and keeps printing: it is updating, not stopping.
      const logging = logFor(engine, 4000, 200).catch(() => 0);
      const ended = await waitFor(t, build.id, finished);
      assert.equal(ended.status, 'terminated');
      assert.equal(
        ended.reason,
        'The build was cancelled; stopped: the build was still terminating after 1 s (MAXIMUM_TERMINATING_STATE_AGE_ALLOWED)',
      );
      await assertStopTask(agent, build.id);
      await logging;
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE: a stopped build whose engine only heartbeats is ended',
  async (database) => {
    const t = await startTestServer(database, FAST);
    try {
      const { build, agent, engine } = await handOut(t, {
        TIME_INACTIVE_UNTIL_TERMINATION: 1,
        MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE: 2,
      });
      await startSteps(engine);
      const done = new AbortController();
      const heartbeats = (async () => {
        while (!done.signal.aborted) {
          await engine.call('engineHeartbeat', { body: {} }).catch(() => undefined);
          await sleep(200);
        }
      })();
      try {
        const ended = await waitFor(t, build.id, finished);
        assert.equal(ended.status, 'terminated');
        assert.equal(
          ended.reason,
          'stopped: no log output for 1 s (TIME_INACTIVE_UNTIL_TERMINATION); stopped: no update from the terminating build for 2 s (MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE)',
        );
      } finally {
        done.abort();
        await heartbeats;
      }
      await assertStopTask(agent, build.id);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES: the pipeline hooks running past the grace period are stopped; long steps are not',
  async (database) => {
    let offsetMs = 0;
    const clock = () => Date.now() + offsetMs;
    const t = await startTestServer(database, FAST, { clock });
    try {
      const { build, agent, engine } = await handOut(t, {
        MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES: 1,
      });
      await startSteps(engine);
      offsetMs += 61_000;
      await sleep(500); // Five passes: the steps took over a minute, which this limit allows.
      const running = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.equal(running.status, 'running');
      const events = [
        { type: 'step-finished' as const, step: 'build', status: 'success' as const, at: at() },
        { type: 'step-started' as const, step: 'hooks.on_finish', parent: 'hooks', at: at() },
      ];
      await engine.call('engineEvents', { body: { events } });
      const cancelled = obeyCancel(engine);
      await sleep(500);
      assert.equal(
        (await t.admin.call('getBuild', { params: { buildId: build.id } })).status,
        'running',
      );
      offsetMs += 61_000;
      await cancelled;
      const ended = await waitFor(t, build.id, finished);
      assert.equal(ended.status, 'terminated');
      assert.equal(
        ended.reason,
        'stopped: the post-steps (pipeline hooks) ran longer than 1 min (MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES)',
      );
      await assertStopTask(agent, build.id);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'silence while the control plane was down is not held against the engine; silence after it is',
  async (database) => {
    const config = { ...FAST, secretKey: exportSecretKey(generateSecretKey()) };
    let offsetMs = 0;
    const clock = () => Date.now() + offsetMs;
    const first = await startTestServer(database, config, { clock });
    let started: Started;
    try {
      started = await handOut(first, { TIME_ENGINE_INACTIVE_UNTIL_TERMINATION: 2 });
      await startSteps(started.engine);
    } finally {
      await first.close();
    }
    offsetMs += 3000; // Away longer than the limit: the engine could not report.
    const t = await startTestServer(database, config, { clock });
    try {
      await sleep(1000); // Ten passes.
      const build = await t.admin.call('getBuild', { params: { buildId: started.build.id } });
      assert.equal(build.status, 'running', build.reason ?? '');
      await t.client(started.engineToken).call('engineHeartbeat', { body: {} });
      const ended = await waitFor(t, started.build.id, finished);
      assert.equal(ended.status, 'error');
      assert.equal(
        ended.reason,
        'stopped: no report from the engine for 2 s (TIME_ENGINE_INACTIVE_UNTIL_TERMINATION)',
      );
    } finally {
      await t.close();
    }
  },
);
