import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import type { SluiceClient } from '@sluice/protocol';
import {
  acknowledge,
  startTestServer,
  agentClient,
  seedPipeline,
  seedPipelines,
  ONE_KIND,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

async function setUp(t: TestServer, options: { maxConcurrentBuilds?: number } = {}) {
  const variables = { TOKEN: { value: 'pipeline-secret-1', secret: true } };
  const pipeline = await seedPipeline(t, {
    maxConcurrentBuilds: options.maxConcurrentBuilds,
    variables,
  });
  return { pipeline, agent: await agentClient(t) };
}

/** Reads an SSE stream to its `end` event; returns the log lines and the final event. */
async function readSse(
  t: TestServer,
  buildId: string,
  lastEventId?: number,
): Promise<{ lines: string[]; ids: number[]; end: string }> {
  const headers: Record<string, string> = {
    authorization: 'Bearer slu_u_test-bootstrap-token-0123456789',
  };
  if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
  const response = await fetch(`${t.url}/api/v1/builds/${buildId}/log/stream`, { headers });
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  const text = await response.text();
  const events = text.split('\n\n').filter((e) => e.startsWith('id:') || e.startsWith('event:'));
  const lines: string[] = [];
  const ids: number[] = [];
  let end = '';
  for (const event of events) {
    const data = /data: (.*)/.exec(event)?.[1] ?? '';
    if (event.includes('event: end')) end = data;
    else {
      ids.push(Number(/id: (\d+)/.exec(event)?.[1]));
      lines.push(...(JSON.parse(data) as { lines: { line: string }[] }).lines.map((l) => l.line));
    }
  }
  return { lines, ids, end };
}

async function runEngine(engine: SluiceClient, at: () => string) {
  const build = await engine.call('engineBuild');
  await engine.call('engineEvents', {
    body: {
      events: [
        { type: 'build-started', at: at() },
        { type: 'step-started', step: 'build', at: at() },
      ],
    },
  });
  await engine.call('engineLog', {
    body: { seq: 0, lines: [{ step: 'build', stream: 'stdout', line: 'compiling', at: at() }] },
  });
  await engine.call('engineLog', {
    body: { seq: 0, lines: [{ step: 'build', stream: 'stdout', line: 'compiling', at: at() }] },
  });
  await engine.call('engineLog', {
    body: { seq: 1, lines: [{ step: 'build', stream: 'stdout', line: 'done', at: at() }] },
  });
  await engine.call('engineEvents', {
    body: {
      events: [
        { type: 'step-finished', step: 'build', status: 'success', exitCode: 0, at: at() },
        { type: 'step-finished', step: 'test', status: 'success', exitCode: 0, at: at() },
        { type: 'build-finished', status: 'success', at: at() },
      ],
    },
  });
  return build;
}

databases.test(
  'a build goes from the API to an agent and an engine, streams its log and ends with steps and timing',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { pipeline, agent } = await setUp(t);
      const poll = agent.call('pollTasks', { query: { wait: 20 } });
      const created = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {
          branch: 'main',
          variables: { LEVEL: '3' },
          secrets: { RUN_SECRET: 'run-secret-2' },
        },
      });
      assert.equal(created.number, 1);
      assert.deepEqual(
        created.steps.map((s) => [s.name, s.status]),
        [
          ['build', 'pending'],
          ['test', 'pending'],
        ],
      );
      const { tasks } = await poll;
      assert.equal(tasks.length, 1);
      const task = tasks[0]!;
      assert.equal(task.type, 'RunEngine');
      assert.equal(task.buildId, created.id);
      assert.equal(task.spec.serverUrl, 'http://control-plane.test');
      const engine = t.client(String(task.spec.engineToken));
      await acknowledge(agent, task);

      const follower = readSse(t, created.id);
      const build = await runEngine(engine, () => new Date().toISOString());
      assert.equal(build.pipelineName, 'app');
      assert.deepEqual(build.variables, { LEVEL: '3' });
      assert.deepEqual(build.secrets, { TOKEN: 'pipeline-secret-1', RUN_SECRET: 'run-secret-2' });

      const sse = await follower;
      assert.deepEqual(
        sse.lines,
        ['compiling', 'done'],
        'each chunk once, in order, the retried chunk ignored',
      );
      assert.deepEqual(sse.ids, [0, 1]);
      assert.match(sse.end, /"status":"success"/);
      const resumed = await readSse(t, created.id, 0);
      assert.deepEqual(resumed.lines, ['done'], 'Last-Event-ID resumes after the given chunk');

      const final = await t.admin.call('getBuild', { params: { buildId: created.id } });
      assert.equal(final.status, 'success');
      assert.deepEqual(
        final.steps.map((s) => [s.name, s.status, s.exitCode]),
        [
          ['build', 'success', 0],
          ['test', 'success', 0],
        ],
      );
      for (const stamp of [
        'queuedAt',
        'electedAt',
        'dispatchedAt',
        'objectsCreatedAt',
        'engineStartedAt',
        'firstStepStartedAt',
        'finishedAt',
      ] as const) {
        assert.ok(
          (final.timing as Record<string, string | undefined>)[stamp],
          `timing.${stamp} is missing: ${JSON.stringify(final.timing)}`,
        );
      }
      const text = await (
        await t.admin.raw('buildLog', { params: { buildId: created.id } })
      ).text();
      assert.equal(text, '[build] compiling\n[build] done\n');
      await assert.rejects(
        engine.call('engineHeartbeat', { body: {} }),
        /unknown, revoked or expired/,
        'the engine token dies with the build',
      );
      assert.ok(
        !JSON.stringify(
          await t.admin.call('getBuild', { params: { buildId: created.id } }),
        ).includes('run-secret-2'),
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a pipeline limit of 1 keeps the second build pending until the first finishes',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { pipeline, agent } = await setUp(t, { maxConcurrentBuilds: 1 });
      const first = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const second = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      assert.equal(first.status, 'elected');
      assert.equal(second.status, 'pending');
      assert.match(second.reason ?? '', /the pipeline allows 1 concurrent build/);
      const { tasks } = await agent.call('pollTasks', { query: { wait: 0 } });
      assert.deepEqual(
        tasks.map((x) => x.buildId),
        [first.id],
      );
      await runEngine(t.client(String(tasks[0]!.spec.engineToken)), () => new Date().toISOString());
      assert.equal(
        (await t.admin.call('getBuild', { params: { buildId: second.id } })).status,
        'elected',
      );
      const next = await agent.call('pollTasks', { query: { wait: 5 } });
      assert.deepEqual(
        next.tasks.map((x) => [x.type, x.buildId]).sort(),
        [
          ['RunEngine', second.id],
          ['StopEngine', first.id],
        ],
        "the second build's engine, and the end of the first",
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a pending build is cancelled at once; a running one through its engine control channel',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { pipeline, agent } = await setUp(t);
      const running = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const { tasks } = await agent.call('pollTasks', { query: { wait: 0 } });
      const engine = t.client(String(tasks[0]!.spec.engineToken));
      await engine.call('engineEvents', {
        body: { events: [{ type: 'build-started', at: new Date().toISOString() }] },
      });
      const control = engine.call('engineControl', { query: { after: 0, wait: 20 } });
      await t.admin.call('cancelBuild', { params: { buildId: running.id } });
      const { messages } = await control;
      assert.deepEqual(
        messages.map((m) => m.kind),
        ['cancel'],
      );
      await engine.call('engineEvents', {
        body: {
          events: [{ type: 'build-finished', status: 'terminated', at: new Date().toISOString() }],
        },
      });
      assert.equal(
        (await t.admin.call('getBuild', { params: { buildId: running.id } })).status,
        'terminated',
      );

      await t.admin.call('deleteAgent', {
        params: { agentId: (await t.admin.call('listAgents')).items[0]!.id },
      });
      const waiting = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const cancelled = await t.admin.call('cancelBuild', { params: { buildId: waiting.id } });
      assert.equal(cancelled.status, 'terminated');
      assert.equal(cancelled.reason, 'Cancelled before it started');
      assert.deepEqual(
        cancelled.steps.map((s) => s.status),
        ['skipped', 'skipped'],
      );
      const restarted = await t.admin.call('restartBuild', { params: { buildId: waiting.id } });
      assert.equal(restarted.retryOf, waiting.id);
      assert.equal(restarted.number, 3);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'builds are listed newest first a page at a time, each as getBuild shows it, and filtered',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const [one, two] = await seedPipelines(t, { pipelines: ['one', 'two'] });
      const created = [];
      for (const pipeline of [one!, two!, one!]) {
        const params = { pipelineId: pipeline.id };
        created.push(await t.admin.call('createBuild', { params, body: { branch: 'main' } }));
      }
      const [oldest, middle, newest] = created.map((build) => build.id);
      await t.admin.call('cancelBuild', { params: { buildId: oldest! } });

      const first = await t.admin.call('listBuilds', { query: { limit: 2 } });
      assert.deepEqual(
        first.items.map((build) => build.id),
        [newest, middle],
      );
      assert.equal(first.nextCursor, middle);
      const rest = await t.admin.call('listBuilds', {
        query: { limit: 2, cursor: first.nextCursor ?? '' },
      });
      assert.deepEqual(
        rest.items.map((build) => build.id),
        [oldest],
      );
      assert.equal(rest.nextCursor, null);
      for (const build of [...first.items, ...rest.items]) {
        const alone = await t.admin.call('getBuild', { params: { buildId: build.id } });
        assert.deepEqual(build, alone, 'a listed build differs from getBuild');
        assert.equal(build.steps.length, 2);
      }

      const ofOne = await t.admin.call('listBuilds', { query: { pipelineId: one!.id } });
      assert.deepEqual(
        ofOne.items.map((build) => build.id),
        [newest, oldest],
      );
      const terminated = await t.admin.call('listBuilds', { query: { status: 'terminated' } });
      assert.deepEqual(
        terminated.items.map((build) => build.id),
        [oldest],
      );
      const none = await t.admin.call('listBuilds', { query: { branch: 'other' } });
      assert.deepEqual(none, { items: [], nextCursor: null });
    } finally {
      await t.close();
    }
  },
);
