import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { LIMITS } from '@sluice/protocol';
import {
  ADMIN_TOKEN,
  agentClient,
  seedPipeline,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

interface ErrorReply {
  status: number;
  code: string;
  message: string;
  paths: string[];
}

async function send(t: TestServer, method: string, path: string, token: string, body: unknown) {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = (await response.json()) as {
    error: { code: string; message: string; details?: { problems?: { path: string }[] } };
  };
  return {
    status: response.status,
    code: reply.error.code,
    message: reply.error.message,
    paths: (reply.error.details?.problems ?? []).map((p) => p.path),
  } satisfies ErrorReply;
}

databases.test(
  'over-long strings in runtime environments and agent versions are refused with 400 naming the field',
  async (database) => {
    const t = await startTestServer(database);
    try {
      // Over the schema's limit, within the route's body limit: refused by the schema, by field.
      const huge = 'x'.repeat(LIMITS.runtimeSpecJson + 1);
      const spec = (namespace: string) => ({
        runtimeScheduler: { type: 'KubernetesPod', cluster: { namespace } },
      });
      const whole = await send(t, 'POST', '/api/v1/runtime-environments', ADMIN_TOKEN, {
        name: 'big',
        spec: spec(huge),
      });
      assert.equal(whole.status, 400);
      assert.equal(whole.code, 'SLUICE_REQUEST_INVALID');
      assert.deepEqual(whole.paths, ['body.spec']);
      assert.ok(whole.message.length < 1000, 'the value is not echoed');

      const one = await send(t, 'POST', '/api/v1/runtime-environments', ADMIN_TOKEN, {
        name: 'big',
        spec: spec('x'.repeat(LIMITS.runtimeSpecString + 1)),
      });
      assert.equal(one.status, 400);
      assert.deepEqual(one.paths, ['body.spec.runtimeScheduler.cluster.namespace']);

      await seedPipeline(t);
      const patch = await send(t, 'PATCH', '/api/v1/runtime-environments/local', ADMIN_TOKEN, {
        patch: { description: huge },
      });
      assert.equal(patch.status, 400);
      assert.deepEqual(patch.paths, ['body.patch']);

      const agent = await agentClient(t);
      const { token } = await t.admin.call('createAgent', {
        body: { name: 'agent-2', runtimes: ['local'] },
      });
      const version = await send(t, 'PUT', '/api/agent/v1/status', token, {
        health: { healthy: true },
        version: 'x'.repeat(100_000),
      });
      assert.equal(version.status, 400);
      assert.deepEqual(version.paths, ['body.version']);
      // Over the route's body limit: refused before the body is read, naming the limit.
      const whole1MiB = await send(t, 'PUT', '/api/agent/v1/status', token, {
        health: { healthy: true },
        version: 'x'.repeat(1024 * 1024),
      });
      assert.deepEqual(
        [whole1MiB.status, whole1MiB.code, whole1MiB.message],
        [
          413,
          'SLUICE_REQUEST_TOO_LARGE',
          'The request body is larger than 262,144 bytes (256 KiB), the most PUT /api/agent/v1/status accepts',
        ],
      );
      await agent.call('agentHeartbeat', {
        body: { health: { healthy: true }, version: 'x'.repeat(LIMITS.agentVersion) },
      });
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a 100k-character step name is refused: in a pipeline (422 at the step) and in engine events (400 naming the field)',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const long = 's'.repeat(100_000);
      // YAML itself refuses implicit keys over 1024 characters; an explicit key (`? `) has none.
      const yaml = `version: "1.0"\nsteps:\n  ? ${long}\n  : image: alpine\n    commands: [make]\n`;
      const refused = await send(t, 'POST', '/api/v1/projects/web/pipelines', ADMIN_TOKEN, {
        name: 'long',
        yaml,
      });
      assert.equal(refused.status, 422);
      assert.equal(refused.code, 'SLUICE_PIPELINE_INVALID');
      assert.match(refused.message, /Step name is 100000 characters long; at most 128/);

      const agent = await agentClient(t);
      await t.admin.call('createBuild', { params: { pipelineId: pipeline.id }, body: {} });
      const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
      const engineToken = String(tasks[0]?.spec.engineToken);
      const at = new Date().toISOString();
      const event = await send(t, 'POST', '/api/engine/v1/events', engineToken, {
        events: [{ type: 'step-started', step: long, at }],
      });
      assert.equal(event.status, 400);
      assert.deepEqual(event.paths, ['body.events.0.step']);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a pipeline over 1 MiB is refused with 413 before it is parsed; a broken one lists its first 50 problems and their count',
  async (database) => {
    const t = await startTestServer(database);
    try {
      await seedPipeline(t);
      const step = '  s: {image: alpine, commands: [make]}\n';
      // 1.5 MiB: over the pipeline limit, within the route's body limit (2 MiB and some).
      const huge = `version: "1.0"\nsteps:\n${step.repeat(Math.ceil((1.5 * 1024 * 1024) / step.length))}`;
      const response = await fetch(`${t.url}/api/v1/projects/web/pipelines`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'huge', yaml: huge }),
      });
      const tooLarge = (await response.json()) as {
        error: { code: string; message: string; details: Record<string, unknown> };
      };
      assert.equal(response.status, 413);
      assert.equal(tooLarge.error.code, 'SLUICE_PIPELINE_TOO_LARGE');
      assert.match(tooLarge.error.message, /the limit is 1048576 bytes/);
      assert.equal(tooLarge.error.details['limit'], LIMITS.pipelineYamlBytes);
      assert.equal(tooLarge.error.details['tooLarge'], undefined, 'the status says it');

      let broken = 'version: "1.0"\nsteps:\n';
      for (let i = 0; i < 120; i++) broken += `  s${i}:\n    commands: ["echo"]\n`;
      const invalid = await fetch(`${t.url}/api/v1/projects/web/pipelines`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'broken', yaml: broken }),
      });
      const body = (await invalid.json()) as {
        error: { code: string; details: { issues: unknown[]; issueCount: number } };
      };
      assert.equal(invalid.status, 422);
      assert.equal(body.error.details.issues.length, LIMITS.documentIssues);
      assert.equal(body.error.details.issueCount, 120);
      const { items } = await t.admin.call('listPipelines', { params: { project: 'web' } });
      assert.ok(!items.some((p) => p.name === 'huge' || p.name === 'broken'), 'nothing stored');
    } finally {
      await t.close();
    }
  },
);
