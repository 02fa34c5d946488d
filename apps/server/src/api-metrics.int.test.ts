/**
 * `/metrics` on its own listener, parsed by a Prometheus text-format parser, on both databases:
 * every series is there (the pool's differ by kind), and they move as builds are created, handed
 * to an agent, log and finish; HTTP requests are labelled by route template, never by URL (on one
 * kind: `ONE_KIND`). `/healthz` and `/readyz`, whose answer names the kind.
 * @module
 */
import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import type { SluiceClient } from '@sluice/protocol';
import {
  ADMIN_TOKEN,
  acknowledge,
  agentClient,
  seedPipeline,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';
import { family, sample, scrape } from '@sluice/testkit';
import type { Scrape } from '@sluice/testkit';

const databases = useTestDatabases();

const BUILDS_ROUTE = '/api/v1/pipelines/:pipelineId/builds';
const at = () => new Date().toISOString();

function metricsOf(t: TestServer): () => Promise<Scrape> {
  const url = t.server.metricsUrl();
  assert.ok(url !== undefined, 'the metrics listener is not running');
  return () => scrape(`${url}/metrics`);
}

function httpCount(m: Scrape, method: string, route: string, statusClass: string): number {
  const labels = { method, route, status_class: statusClass };
  return sample(m, 'sluice_server_http_request_duration_seconds', labels) ?? 0;
}

/** An engine's life for `build`: started, 3 log lines, success. */
async function runEngine(engine: SluiceClient): Promise<void> {
  await engine.call('engineEvents', { body: { events: [{ type: 'build-started', at: at() }] } });
  const lines = ['one', 'two', 'three'].map((line) => ({
    step: 'build',
    stream: 'stdout' as const,
    line,
    at: at(),
  }));
  await engine.call('engineLog', { body: { seq: 0, lines } });
  await engine.call('engineEvents', {
    body: { events: [{ type: 'build-finished', status: 'success', at: at() }] },
  });
}

databases.test('every series is in /metrics, and they move as builds run', async (database) => {
  const t = await startTestServer(database, { metricsPort: 0 });
  try {
    const metrics = metricsOf(t);
    const pipeline = await seedPipeline(t, { maxConcurrentBuilds: 1 });
    const before = await metrics();
    for (const name of [
      'sluice_server_builds',
      'sluice_server_queue_depth',
      'sluice_server_queue_oldest_age_seconds',
      'sluice_server_db_pool_connections',
      'sluice_server_db_pool_waiting',
      'sluice_server_database_up',
      'sluice_server_process_cpu_user_seconds_total',
      'sluice_server_nodejs_eventloop_lag_seconds',
    ])
      family(before, name);
    family(before, 'sluice_server_build_dispatch_seconds', 'histogram');
    family(before, 'sluice_server_log_lines_received_total', 'counter');
    family(before, 'sluice_server_builds_finished_total', 'counter');
    family(before, 'sluice_server_http_request_duration_seconds', 'histogram');
    family(before, 'sluice_server_scheduling_pass_seconds', 'histogram');
    family(before, 'sluice_server_builds_elected_total', 'counter');
    const electedBefore = sample(before, 'sluice_server_builds_elected_total') ?? 0;
    const passesBefore = sample(before, 'sluice_server_scheduling_pass_seconds') ?? 0;
    assert.equal(sample(before, 'sluice_server_database_up'), 1);
    assert.equal(sample(before, 'sluice_server_builds', { status: 'pending' }), 0);
    assert.equal(sample(before, 'sluice_server_builds_finished_total', { status: 'success' }), 0);
    const max = database.kind === 'pglite' ? 1 : 10;
    assert.equal(sample(before, 'sluice_server_db_pool_connections', { state: 'max' }), max);
    assert.equal(sample(before, 'sluice_server_build_dispatch_seconds'), 0);
    const createdBefore = httpCount(before, 'POST', BUILDS_ROUTE, '2xx');

    // With one build at a time, the first is elected (its task waits for an agent), the second pending.
    const create = () =>
      t.admin.call('createBuild', { params: { pipelineId: pipeline.id }, body: {} });
    const first = await create();
    await create();
    const queued = await metrics();
    assert.equal(sample(queued, 'sluice_server_builds', { status: 'elected' }), 1);
    assert.equal(sample(queued, 'sluice_server_builds', { status: 'pending' }), 1);
    assert.equal(sample(queued, 'sluice_server_queue_depth', { queue: 'builds' }), 1);
    assert.equal(sample(queued, 'sluice_server_queue_depth', { queue: 'tasks' }), 1);
    assert.ok(
      (sample(queued, 'sluice_server_queue_oldest_age_seconds', { queue: 'tasks' }) ?? -1) >= 0,
    );
    assert.equal(httpCount(queued, 'POST', BUILDS_ROUTE, '2xx'), createdBefore + 2);
    // Each create's pass ran; only the first elected a build.
    assert.ok((sample(queued, 'sluice_server_scheduling_pass_seconds') ?? 0) >= passesBefore + 2);
    assert.equal(sample(queued, 'sluice_server_builds_elected_total'), electedBefore + 1);

    // An agent takes the first build's task: dispatched once, the task queue is empty.
    const agent = await agentClient(t);
    const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
    const task = tasks.find((x) => x.buildId === first.id);
    assert.ok(task !== undefined, 'no task for the first build');
    const taken = await metrics();
    assert.equal(sample(taken, 'sluice_server_build_dispatch_seconds'), 1);
    assert.equal(sample(taken, 'sluice_server_queue_depth', { queue: 'tasks' }), 0);

    // Its engine logs three lines and succeeds; the second build is then elected.
    await acknowledge(agent, task);
    await runEngine(t.client(String(task.spec.engineToken)));
    const done = await metrics();
    assert.equal(
      sample(done, 'sluice_server_log_lines_received_total'),
      (sample(taken, 'sluice_server_log_lines_received_total') ?? 0) + 3,
    );
    assert.equal(sample(done, 'sluice_server_builds_finished_total', { status: 'success' }), 1);
    assert.equal(sample(done, 'sluice_server_builds', { status: 'success' }), undefined);
    assert.equal(sample(done, 'sluice_server_builds', { status: 'pending' }), 0);
    assert.equal(sample(done, 'sluice_server_builds', { status: 'elected' }), 1);
    assert.ok(httpCount(done, 'POST', '/api/engine/v1/log', '2xx') >= 1);
  } finally {
    await t.close();
  }
});

databases.test(
  'HTTP requests are labelled by route template, and unknown URLs by one label',
  async (database) => {
    const t = await startTestServer(database, { metricsPort: 0 });
    try {
      const metrics = metricsOf(t);
      for (const id of ['b-missing-1', 'b-missing-2', 'b-missing-3'])
        assert.equal(
          (await fetch(`${t.url}/api/v1/builds/${id}`, { headers: auth() })).status,
          404,
        );
      // Any other page address is the web UI's: unknown URLs are the API's.
      for (const path of ['/api/nope/1', '/api/v1/nope/2', '/metrics'])
        assert.equal((await fetch(`${t.url}${path}`)).status, 404);
      const m = await metrics();
      assert.equal(httpCount(m, 'GET', '/api/v1/builds/:buildId', '4xx'), 3);
      assert.equal(httpCount(m, 'GET', 'unmatched', '4xx'), 3);
      const routes = family(m, 'sluice_server_http_request_duration_seconds').metrics.map(
        (s) => s.labels?.route ?? '',
      );
      assert.deepEqual(
        routes.filter((route) => /missing|nope|^\/metrics$/.test(route)),
        [],
        'a raw URL became a label',
      );
      // The listener serves /metrics only.
      const url = t.server.metricsUrl() ?? '';
      assert.equal((await fetch(`${url}/healthz`)).status, 404);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test('/healthz and /readyz answer 200 while the database answers', async (database) => {
  const t = await startTestServer(database);
  try {
    const live = await fetch(`${t.url}/healthz`);
    assert.equal(live.status, 200);
    assert.deepEqual(await live.json(), { ok: true });
    const ready = await t.admin.call('readiness');
    assert.equal(ready.ready, true);
    assert.equal(ready.database.kind, database.kind);
    assert.equal(ready.database.ok, true);
    assert.equal(t.server.metricsUrl(), undefined, 'no metrics listener unless a port is set');
  } finally {
    await t.close();
  }
});

function auth() {
  return { authorization: `Bearer ${ADMIN_TOKEN}` };
}
