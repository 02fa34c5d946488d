import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import {
  ADMIN_TOKEN,
  seedPipeline,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

async function rejectsWith(
  promise: Promise<unknown>,
  category: string,
  code?: string,
): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(isSluiceError(err), String(err));
    assert.equal(err.category, category, `${err.code}: ${err.message}`);
    if (code !== undefined) assert.equal(err.code, code);
    return true;
  });
}

databases.test(
  'the bootstrap admin token works, tokens are created once, listed without values and revoked',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const me = await t.admin.call('me');
      assert.equal(me.user.name, 'admin');
      assert.equal(me.user.isAdmin, true);
      const created = await t.admin.call('createToken', { body: { name: 'ci' } });
      assert.match(created.token, /^slu_u_[A-Za-z0-9_-]{40}$/);
      const ci = t.client(created.token);
      assert.equal((await ci.call('me')).user.name, 'admin');
      const listed = await t.admin.call('listTokens');
      assert.deepEqual(listed.items.map((i) => i.name).sort(), ['bootstrap', 'ci']);
      assert.ok(!JSON.stringify(listed).includes(created.token), 'a token value was listed');
      await t.admin.call('revokeToken', { params: { tokenId: created.info.id } });
      await rejectsWith(ci.call('me'), 'authentication', 'SLUICE_AUTH_INVALID_TOKEN');
      const stored = await database.db.selectFrom('api_tokens').select('token_hash').execute();
      assert.ok(
        stored.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash)),
        'tokens are stored as SHA-256 hashes',
      );
      assert.ok(
        !t.logs().includes(created.token) && !t.logs().includes(ADMIN_TOKEN),
        'a token reached the log',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'authorization matrix: each token kind reaches only its own API family',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const { token: agentToken } = await t.admin.call('createAgent', {
        body: { name: 'a1', runtimes: ['local'] },
      });
      const agent = t.client(agentToken);
      const anonymous = t.client('');
      const bogus = t.client('slu_u_not-a-real-token');
      // No token, or an unknown one.
      await rejectsWith(anonymous.call('me'), 'authentication', 'SLUICE_AUTH_REQUIRED');
      await rejectsWith(bogus.call('listProjects'), 'authentication', 'SLUICE_AUTH_INVALID_TOKEN');
      await rejectsWith(anonymous.call('pollTasks', { query: { wait: 0 } }), 'authentication');
      // An agent token cannot use the user API nor the engine API.
      await rejectsWith(agent.call('listProjects'), 'not-allowed', 'SLUICE_AUTH_WRONG_SCOPE');
      await rejectsWith(
        agent.call('getPipeline', { params: { pipelineId: pipeline.id } }),
        'not-allowed',
      );
      await rejectsWith(agent.call('engineBuild'), 'not-allowed');
      // A user token cannot poll tasks nor act as an engine.
      await rejectsWith(t.admin.call('pollTasks', { query: { wait: 0 } }), 'not-allowed');
      await rejectsWith(t.admin.call('engineHeartbeat', { body: {} }), 'not-allowed');
      // The public endpoints need nothing.
      assert.equal((await anonymous.call('health')).ok, true);
      assert.deepEqual((await agent.call('pollTasks', { query: { wait: 0 } })).tasks, []);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a pipeline with broken YAML is refused with 422 listing every problem with line and column',
  async (database) => {
    const t = await startTestServer(database);
    try {
      await t.admin.call('createProject', { body: { name: 'web' } });
      const yaml = [
        'version: "1.0"',
        'steps:',
        '  build:',
        '    image: alpine',
        '    comands: [make]',
        '  test:',
        '    type: freestle',
        '',
      ].join('\n');
      const response = await fetch(`${t.url}/api/v1/projects/web/pipelines`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'app', yaml }),
      });
      assert.equal(response.status, 422);
      const body = (await response.json()) as {
        error: {
          code: string;
          details: { issues: { line: number; column: number; message: string }[] };
        };
      };
      assert.equal(body.error.code, 'SLUICE_PIPELINE_INVALID');
      assert.deepEqual(
        body.error.details.issues.map((i) => [i.line, i.column]),
        [
          [5, 5],
          [7, 11],
        ],
      );
      assert.match(body.error.details.issues[0]?.message ?? '', /did you mean "commands"/);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'secret variables are encrypted at rest and never returned; plain ones are',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t, {
        variables: {
          REGION: { value: 'eu', secret: false },
          API_KEY: { value: 'sk-live-123456', secret: true },
        },
      });
      assert.deepEqual(pipeline.variables, [
        { name: 'API_KEY', value: null, secret: true },
        { name: 'REGION', value: 'eu', secret: false },
      ]);
      const rows = await database.db.selectFrom('pipeline_variables').selectAll().execute();
      assert.ok(!JSON.stringify(rows).includes('sk-live-123456'), 'the secret is stored in clear');
      assert.ok(!t.logs().includes('sk-live-123456'));
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'every answer under /api says Cache-Control: no-store, a new token and errors included',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const headers = {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        'content-type': 'application/json',
      };
      const answers = {
        'POST /api/v1/tokens': await fetch(`${t.url}/api/v1/tokens`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'ci' }),
        }),
        'GET /api/v1/me': await fetch(`${t.url}/api/v1/me`, { headers }),
        'GET /api/health': await fetch(`${t.url}/api/health`),
        'GET /api/v1/me without a token': await fetch(`${t.url}/api/v1/me`),
        'GET /api/v1/nothing': await fetch(`${t.url}/api/v1/nothing`, { headers }),
        'POST /api/v1/tokens with a bad body': await fetch(`${t.url}/api/v1/tokens`, {
          method: 'POST',
          headers,
          body: '{"name": 7}',
        }),
        'GET an undecodable /api URL': await fetch(`${t.url}/api/v1/projects/%E0%A4%A`, {
          headers,
        }),
      };
      const statuses = Object.fromEntries(
        Object.entries(answers).map(([what, answer]) => [
          what,
          [answer.status, answer.headers.get('cache-control')],
        ]),
      );
      assert.deepEqual(statuses, {
        'POST /api/v1/tokens': [201, 'no-store'],
        'GET /api/v1/me': [200, 'no-store'],
        'GET /api/health': [200, 'no-store'],
        'GET /api/v1/me without a token': [401, 'no-store'],
        'GET /api/v1/nothing': [404, 'no-store'],
        'POST /api/v1/tokens with a bad body': [400, 'no-store'],
        'GET an undecodable /api URL': [400, 'no-store'],
      });
      // The web UI's own caching is its own (web-ui.ts).
      assert.notEqual((await fetch(`${t.url}/`)).headers.get('cache-control'), 'no-store');
    } finally {
      await t.close();
    }
  },
);
