import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import { ROLES, routes } from '@sluice/protocol';
import type { RouteDef, SluiceClient } from '@sluice/protocol';
import { isAudited } from './http/audit-hook.js';
import {
  ADMIN_TOKEN,
  ONE_KIND,
  SIMPLE_PIPELINE,
  seedPipeline,
  startTestServer,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases();

/** Every route of the route table, by name. */
const TABLE = Object.entries(routes) as [string, RouteDef][];

/** The routes a user token reaches: those that name a role. */
const USER_ROUTES = TABLE.filter(([, def]) => (ROLES as readonly string[]).includes(def.scope));

/**
 * Routes that are not GET but change nothing: checking a pipeline's YAML. Anything else that is
 * not a GET is a change, which a viewer must be refused.
 */
const READS_BY_POST = new Set(['validatePipeline']);

/**
 * The routes no token is needed for: the web UI's sign-in (outside /api/v1), the probes and the
 * webhook git hosts post to.
 */
const PUBLIC_ROUTES = [
  'authProviders',
  'signIn',
  'signOut',
  'cliLoginToken',
  'revokeCallerToken',
  'health',
  'liveness',
  'readiness',
  'receiveWebhook',
];

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<Error> {
  let caught: Error | undefined;
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(isSluiceError(err), String(err));
    assert.equal(err.code, code, err.message);
    caught = err;
    return true;
  });
  return caught as Error;
}

/** A new user of `role` (limited to `projects`, when given) and a client with a token of theirs. */
async function userClient(
  t: TestServer,
  name: string,
  options: { role: 'viewer' | 'member' | 'admin'; projects?: string[]; scope?: 'read' | 'run' },
): Promise<{ client: SluiceClient; token: string; tokenId: string }> {
  await t.admin.call('createUser', {
    body: { name, role: options.role, projects: options.projects },
  });
  const { token, info } = await t.admin.call('createToken', {
    body: { name: `${name}-cli`, user: name, scope: options.scope },
  });
  return { client: t.client(token), token, tokenId: info.id };
}

/** Calls a route with placeholder params and an empty body: the status and error code. */
async function callRoute(t: TestServer, def: RouteDef, token: string) {
  const path = def.path.replace(/:(\w+)/g, 'x');
  const hasBody = def.method !== 'GET' && def.method !== 'DELETE';
  const response = await fetch(`${t.url}${path}`, {
    method: def.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
    },
    body: hasBody ? '{}' : undefined,
  });
  const text = await response.text();
  const error = response.status >= 400 ? parseError(text) : undefined;
  return { status: response.status, code: error?.code, message: error?.message ?? '' };
}

function parseError(text: string): { code: string; message: string } | undefined {
  try {
    return (JSON.parse(text) as { error?: { code: string; message: string } }).error;
  } catch {
    return undefined;
  }
}

test('the route table gives every route a rule, and a viewer none that changes something', () => {
  const scopes = new Set(['public', 'agent', 'engine', ...ROLES]);
  for (const [name, def] of TABLE) {
    assert.ok(scopes.has(def.scope), `${name} (${def.method} ${def.path}): scope ${def.scope}`);
    if (def.path.startsWith('/api/v1/'))
      assert.ok(
        ROLES.some((r) => r === def.scope),
        `${name} is under /api/v1 but not a role`,
      );
    const changes = def.method !== 'GET' && !READS_BY_POST.has(name);
    if (def.path.startsWith('/api/v1/') && changes) {
      assert.notEqual(def.scope, 'viewer', `${name} changes something but a viewer may call it`);
      assert.ok(isAudited(def), `${name} changes something but is not audited`);
    }
  }
  assert.deepEqual(
    TABLE.filter(([, def]) => def.scope === 'public').map(([name]) => name),
    PUBLIC_ROUTES,
  );
});

databases.test(
  'role matrix over the route table: each role and narrowed token is refused exactly the routes above it',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const viewer = await userClient(t, 'vera', { role: 'viewer' });
      const member = await userClient(t, 'max', { role: 'member' });
      // An admin's token of scope read acts as a viewer.
      const { token: readToken } = await t.admin.call('createToken', {
        body: { name: 'dashboard', scope: 'read' },
      });
      const callers = [
        { who: 'viewer', token: viewer.token, acts: 'viewer' },
        { who: 'member', token: member.token, acts: 'member' },
        { who: 'admin token of scope read', token: readToken, acts: 'viewer' },
        { who: 'admin', token: ADMIN_TOKEN, acts: 'admin' },
      ] as const;
      const order: readonly string[] = ROLES;
      for (const [name, def] of USER_ROUTES) {
        for (const caller of callers) {
          const { status, code, message } = await callRoute(t, def, caller.token);
          const allowed = order.indexOf(caller.acts) >= order.indexOf(def.scope);
          const where = `${name} (${def.method} ${def.path}) as ${caller.who}: ${status} ${code ?? ''} ${message}`;
          if (allowed) {
            assert.notEqual(status, 403, where);
            assert.notEqual(status, 401, where);
          } else {
            assert.equal(status, 403, where);
            assert.equal(code, 'SLUICE_AUTH_ROLE_REQUIRED', where);
            // The refusal names the role needed and the one the caller acts as.
            assert.ok(message.includes(`needs the ${def.scope} role`), where);
            assert.ok(message.includes(`acts as ${caller.acts}`), where);
          }
        }
      }
      // The narrowed token says why: its user is an admin, its scope read.
      const refused = await callRoute(t, routes.createProject, readToken);
      assert.match(refused.message, /user admin is an admin; the token's scope is read/);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a member limited to one project is refused the builds, pipelines and triggers of another',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const web = await seedPipeline(t);
      await t.admin.call('createProject', { body: { name: 'api' } });
      const api = await t.admin.call('createPipeline', {
        params: { project: 'api' },
        body: { name: 'server', yaml: SIMPLE_PIPELINE },
      });
      const trigger = await t.admin.call('createTrigger', {
        params: { pipelineId: api.id },
        body: { kind: 'cron', cron: '0 0 * * *' },
      });
      const apiBuild = await t.admin.call('createBuild', {
        params: { pipelineId: api.id },
        body: {},
      });
      const { client: alice } = await userClient(t, 'alice', { role: 'member', projects: ['web'] });

      const webBuild = await alice.call('createBuild', {
        params: { pipelineId: web.id },
        body: {},
      });
      assert.equal(
        (await alice.call('getBuild', { params: { buildId: webBuild.id } })).id,
        webBuild.id,
      );
      const refusals = [
        () => alice.call('getBuild', { params: { buildId: apiBuild.id } }),
        () => alice.raw('buildLog', { params: { buildId: apiBuild.id }, query: {} }),
        () => alice.call('cancelBuild', { params: { buildId: apiBuild.id } }),
        () => alice.call('restartBuild', { params: { buildId: apiBuild.id } }),
        () => alice.call('createBuild', { params: { pipelineId: api.id }, body: {} }),
        () => alice.call('getPipeline', { params: { pipelineId: api.id } }),
        () =>
          alice.call('updatePipeline', {
            params: { pipelineId: api.id },
            body: { yaml: SIMPLE_PIPELINE },
          }),
        () => alice.call('listPipelines', { params: { project: 'api' } }),
        () => alice.call('deleteTrigger', { params: { triggerId: trigger.id } }),
        () => alice.call('createProject', { body: { name: 'other' } }),
      ];
      for (const refusal of refusals) {
        const err = await rejectsWith(refusal(), 'SLUICE_AUTH_PROJECT_NOT_GRANTED');
        assert.match(err.message, /User alice may not use project "(api|other)"/);
      }
      // Lists show her projects only.
      const builds = await alice.call('listBuilds', { query: {} });
      assert.deepEqual(
        builds.items.map((b) => b.id),
        [webBuild.id],
      );
      const projects = await alice.call('listProjects');
      assert.deepEqual(
        projects.items.map((p) => p.name),
        ['web'],
      );
      // Granted the project, she may use it at her next request.
      await t.admin.call('updateUser', {
        params: { name: 'alice' },
        body: { projects: ['web', 'api'] },
      });
      assert.equal(
        (await alice.call('getBuild', { params: { buildId: apiBuild.id } })).id,
        apiBuild.id,
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test('an expired token is refused, and its use is in the audit log', async (database) => {
  let now = Date.now();
  const t = await startTestServer(database, {}, { clock: () => now });
  try {
    await t.admin.call('createUser', { body: { name: 'robot', role: 'member' } });
    const { token, info } = await t.admin.call('createToken', {
      body: { name: 'deploys', user: 'robot', scope: 'run', expiresInSeconds: 3600 },
    });
    assert.equal(info.user, 'robot');
    assert.equal(info.scope, 'run');
    const robot = t.client(token);
    assert.equal((await robot.call('me')).token.role, 'member');
    now += 3601_000;
    await rejectsWith(robot.call('me'), 'SLUICE_AUTH_INVALID_TOKEN');
    await rejectsWith(
      robot.call('createProject', { body: { name: 'x' } }),
      'SLUICE_AUTH_INVALID_TOKEN',
    );
    const { items } = await t.admin.call('listAudit', { query: { user: 'robot' } });
    assert.deepEqual(
      items.map((e) => [e.action, e.outcome, e.details.reason, e.actor.tokenId]),
      [
        ['tokenRejected', 'denied', 'expired', info.id],
        ['tokenRejected', 'denied', 'expired', info.id],
      ],
    );
  } finally {
    await t.close();
  }
});

databases.test(
  "a removed user's token is refused at their next request; no token outranks its user or maker",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { client: carol } = await userClient(t, 'carol', { role: 'member' });
      assert.equal((await carol.call('me')).user.role, 'member');
      await t.admin.call('deleteUser', { params: { name: 'carol' } });
      const err = await rejectsWith(carol.call('me'), 'SLUICE_AUTH_INVALID_TOKEN');
      assert.ok(isSluiceError(err) && err.category === 'authentication');
      assert.deepEqual(
        (await t.admin.call('listUsers')).items.map((u) => [u.name, u.role]),
        [['admin', 'admin']],
      );
      // The account keeps an admin.
      await rejectsWith(
        t.admin.call('deleteUser', { params: { name: 'admin' } }),
        'SLUICE_USER_LAST_ADMIN',
      );
      // A token carries at most its user's rights.
      await t.admin.call('createUser', { body: { name: 'dan', role: 'viewer' } });
      await rejectsWith(
        t.admin.call('createToken', { body: { name: 'x', user: 'dan', scope: 'run' } }),
        'SLUICE_TOKEN_SCOPE_TOO_WIDE',
      );
      // A narrowed token makes tokens as narrow by default, and none wider.
      const { token: runToken } = await t.admin.call('createToken', {
        body: { name: 'ci', scope: 'run' },
      });
      const narrowed = t.client(runToken);
      const child = await narrowed.call('createToken', { body: { name: 'child' } });
      assert.equal(child.info.scope, 'run');
      await rejectsWith(
        narrowed.call('createToken', { body: { name: 'wide', scope: 'admin' } }),
        'SLUICE_AUTH_ROLE_REQUIRED',
      );
      await rejectsWith(
        narrowed.call('createToken', { body: { name: 'for-dan', user: 'dan' } }),
        'SLUICE_AUTH_ROLE_REQUIRED',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'the audit log records a pipeline edit with its user, a refusal, and never a token or secret',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const { client: maria, token } = await userClient(t, 'maria', { role: 'member' });
      const { client: vic } = await userClient(t, 'vic', { role: 'viewer' });
      await maria.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: SIMPLE_PIPELINE.replace('make test', 'make check') },
      });
      await maria.call('setVariable', {
        params: { pipelineId: pipeline.id, name: 'API_KEY' },
        body: { value: 'sk-live-audit-secret', secret: true },
      });
      await rejectsWith(
        vic.call('cancelBuild', { params: { buildId: 'bld_x' } }),
        'SLUICE_AUTH_ROLE_REQUIRED',
      );
      const { items } = await t.admin.call('listAudit', { query: {} });
      const edit = items.find((e) => e.action === 'updatePipeline');
      assert.ok(edit !== undefined, JSON.stringify(items));
      assert.equal(edit.actor.user, 'maria');
      assert.equal(edit.target, `/api/v1/pipelines/${pipeline.id}`);
      assert.equal(edit.outcome, 'succeeded');
      assert.equal(edit.status, 200);
      assert.match(edit.source ?? '', /127\.0\.0\.1/);
      const denied = items.find((e) => e.action === 'cancelBuild');
      assert.deepEqual(
        [denied?.actor.user, denied?.outcome, denied?.status],
        ['vic', 'denied', 403],
      );
      const created = items.filter((e) => e.action === 'createToken');
      assert.deepEqual(created.map((e) => [e.actor.user, e.details.user]).sort(), [
        ['admin', 'maria'],
        ['admin', 'vic'],
      ]);
      const everything = JSON.stringify(items);
      for (const secret of [token, ADMIN_TOKEN, 'sk-live-audit-secret'])
        assert.ok(!everything.includes(secret), 'a token or a secret reached the audit log');
      const rows = JSON.stringify(
        await database.db.selectFrom('audit_events').selectAll().execute(),
      );
      const hashes = await database.db.selectFrom('api_tokens').select('token_hash').execute();
      assert.ok(
        hashes.every((h) => !rows.includes(h.token_hash)),
        'a token hash was recorded',
      );
      // Only admins read it.
      await rejectsWith(maria.call('listAudit', { query: {} }), 'SLUICE_AUTH_ROLE_REQUIRED');
    } finally {
      await t.close();
    }
  },
);
