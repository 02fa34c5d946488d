import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import {
  acknowledge,
  ADMIN_TOKEN,
  agentClient,
  seedPipeline,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases();

interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    details?: { problems?: { path: string; message: string }[] };
    requestId?: string;
  };
}

/** A request the typed client cannot send (raw paths, bad bytes), answered as status and body. */
async function send(
  t: TestServer,
  method: string,
  path: string,
  options: { body?: string | Buffer; token?: string | null } = {},
): Promise<{ status: number; body: ErrorEnvelope; requestId: string | null }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.token !== null) headers.authorization = `Bearer ${options.token ?? ADMIN_TOKEN}`;
  const response = await fetch(`${t.url}${path}`, { method, headers, body: options.body });
  const text = await response.text();
  return {
    status: response.status,
    body: (text === '' ? {} : JSON.parse(text)) as ErrorEnvelope,
    requestId: response.headers.get('x-request-id'),
  };
}

/** A build whose engine task was handed out: its id and the engine's token. */
async function startEngine(t: TestServer): Promise<{ buildId: string; token: string }> {
  const pipeline = await seedPipeline(t);
  const agent = await agentClient(t);
  const build = await t.admin.call('createBuild', {
    params: { pipelineId: pipeline.id },
    body: {},
  });
  const task = (await agent.call('pollTasks', { query: { wait: 5 } })).tasks[0];
  assert.ok(task !== undefined, 'no task for the build');
  await acknowledge(agent, task);
  return { buildId: build.id, token: String(task.spec.engineToken) };
}

function problemPaths(body: ErrorEnvelope): string[] {
  return (body.error.details?.problems ?? []).map((p) => p.path);
}

databases.test(
  'a NUL in a webhook id, a name, a path or a query is a 400 naming the field',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const webhook = await send(t, 'POST', '/api/webhooks/%00', { body: '{}', token: null });
      assert.equal(webhook.status, 400);
      assert.equal(webhook.body.error.code, 'SLUICE_REQUEST_INVALID');
      assert.deepEqual(problemPaths(webhook.body), ['params.triggerId']);

      const project = await send(t, 'POST', '/api/v1/projects', { body: '{"name":"a\\u0000b"}' });
      assert.equal(project.status, 400);
      assert.deepEqual(problemPaths(project.body), ['body.name']);
      assert.match(project.body.error.message, /body\.name: Must not contain a NUL character/);

      const pipeline = await send(t, 'GET', '/api/v1/pipelines/pip%00');
      assert.equal(pipeline.status, 400);
      assert.deepEqual(problemPaths(pipeline.body), ['params.pipelineId']);

      const query = await send(t, 'GET', '/api/v1/builds?branch=main%00');
      assert.equal(query.status, 400);
      assert.deepEqual(problemPaths(query.body), ['query.branch']);

      const key = await send(t, 'POST', '/api/v1/runtime-environments', {
        body: '{"metadata":{"name":"x"},"a\\u0000":1,"b":"\\ud800"}',
      });
      assert.equal(key.status, 400);
      assert.deepEqual(problemPaths(key.body), ['body.a\\u0000', 'body.b']);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a log line with NUL, a lone surrogate and invalid UTF-8 is stored with them replaced',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { buildId, token } = await startEngine(t);
      const at = new Date().toISOString();
      await t.client(token).call('engineLog', {
        body: {
          seq: 0,
          lines: [{ step: 'build', stream: 'stdout', line: 'a\u0000b\ud800c\udc00d', at }],
        },
      });
      // Bytes that are not UTF-8 (0xff) inside the JSON string itself.
      const json = Buffer.concat([
        Buffer.from(`{"seq":1,"lines":[{"step":"build","stream":"stderr","at":"${at}","line":"x`),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('y"}]}'),
      ]);
      const raw = await fetch(`${t.url}/api/engine/v1/log`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
        },
        body: json,
      });
      assert.equal(raw.status, 204);
      const text = await (await t.admin.raw('buildLog', { params: { buildId } })).text();
      assert.equal(text, '[build] a\u2400b\ufffdc\ufffdd\n[build] x\ufffd\ufffdy\n');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a database error is a 500 with the request id and no database text, logged with that id',
  async (database) => {
    const t = await startTestServer(database);
    try {
      await database.db.schema.dropTable('projects').cascade().execute();
      const response = await send(t, 'GET', '/api/v1/projects');
      assert.equal(response.status, 500);
      const { error } = response.body;
      assert.equal(error.code, 'SLUICE_INTERNAL');
      assert.ok(error.requestId, 'the body carries the request id');
      assert.equal(response.requestId, error.requestId, 'x-request-id is the same id');
      const bodyText = JSON.stringify(response.body);
      for (const leak of ['42P01', 'projects', 'relation', 'sqlState', 'SLUICE_DB']) {
        assert.ok(!bodyText.includes(leak), `the body leaks ${leak}: ${bodyText}`);
      }
      const logged = t
        .logs()
        .split('\n')
        .filter((line) => line.includes(error.requestId ?? '-'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.equal(logged.length, 1, t.logs());
      const [entry] = logged;
      assert.equal(entry?.level, 50);
      assert.equal(entry?.status, 500);
      assert.equal(entry?.code, 'SLUICE_DB_QUERY_FAILED');
      assert.match(String(entry?.error), /relation "projects" does not exist/);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'an engine event with a time that is not RFC 3339 is a 400 naming it',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { token } = await startEngine(t);
      const response = await send(t, 'POST', '/api/engine/v1/events', {
        token,
        body: JSON.stringify({ events: [{ type: 'build-started', at: 'garbage' }] }),
      });
      assert.equal(response.status, 400);
      assert.equal(response.body.error.code, 'SLUICE_REQUEST_INVALID');
      assert.ok(problemPaths(response.body).includes('body.events.0.at'));
      await t.client(token).call('engineEvents', {
        body: { events: [{ type: 'build-started', at: '2026-01-02T03:04:05+01:00' }] },
      });
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a paging cursor that no page gave out is a 400; a real one pages',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      for (let i = 0; i < 3; i++) {
        await t.admin.call('createBuild', { params: { pipelineId: pipeline.id }, body: {} });
      }
      const bad = await send(t, 'GET', '/api/v1/builds?cursor=garbage');
      assert.equal(bad.status, 400);
      assert.deepEqual(problemPaths(bad.body), ['query.cursor']);
      const first = await t.admin.call('listBuilds', { query: { limit: 2 } });
      assert.equal(first.items.length, 2);
      assert.ok(first.nextCursor !== null);
      const second = await t.admin.call('listBuilds', {
        query: { limit: 2, cursor: first.nextCursor },
      });
      assert.equal(second.items.length, 1);
      assert.equal(second.nextCursor, null);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'an unknown route or an unreadable URL answers in the error envelope',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const missing = await send(t, 'GET', '/api/v1/no-such-thing?x=1', { token: null });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, 'SLUICE_ROUTE_NOT_FOUND');
      assert.equal(missing.body.error.message, 'No route GET /api/v1/no-such-thing');
      assert.equal(missing.body.error.requestId, missing.requestId);
      const badUrl = await send(t, 'GET', '/api/v1/projects/%E0%A4%A');
      assert.equal(badUrl.status, 400);
      assert.equal(badUrl.body.error.code, 'SLUICE_HTTP_BAD_REQUEST');
      assert.equal(badUrl.body.error.requestId, badUrl.requestId);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a save based on an older version is a 409 with the current pipeline, and saves nothing',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const params = { pipelineId: pipeline.id };
      const theirs = pipeline.yaml.replace('make test', 'make check');
      const saved = await t.admin.call('updatePipeline', {
        params,
        body: { yaml: theirs, ifUpdatedAt: pipeline.updatedAt },
      });
      assert.notEqual(saved.updatedAt, pipeline.updatedAt);
      const stale = await send(t, 'PATCH', `/api/v1/pipelines/${pipeline.id}`, {
        body: JSON.stringify({
          yaml: pipeline.yaml.replace('make test', 'make mine'),
          ifUpdatedAt: pipeline.updatedAt,
        }),
      });
      assert.equal(stale.status, 409);
      assert.equal(stale.body.error.code, 'SLUICE_PIPELINE_CHANGED');
      assert.match(stale.body.error.message, /^Pipeline web\/app changed since /);
      const current = (
        stale.body.error.details as { current?: { yaml: string; updatedAt: string } }
      ).current;
      assert.deepEqual(
        { yaml: current?.yaml, updatedAt: current?.updatedAt },
        { yaml: theirs, updatedAt: saved.updatedAt },
      );
      const now = await t.admin.call('getPipeline', { params });
      assert.equal(now.yaml, theirs, 'the stale save changed nothing');
      // Without ifUpdatedAt a save replaces as before (the CLI's apply).
      const forced = await t.admin.call('updatePipeline', {
        params,
        body: { yaml: pipeline.yaml },
      });
      assert.equal(forced.yaml, pipeline.yaml);

      const again = await send(t, 'POST', '/api/v1/projects/web/pipelines', {
        body: JSON.stringify({ name: 'app', yaml: pipeline.yaml }),
      });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'SLUICE_PIPELINE_EXISTS');
      assert.equal(again.body.error.message, 'Pipeline web/app already exists');
    } finally {
      await t.close();
    }
  },
);
