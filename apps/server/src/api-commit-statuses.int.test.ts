/**
 * Commit statuses against HTTP servers that take each host's documented status API and check
 * what they are sent: a webhook build of a commit reports pending, running, then its end to
 * GitHub with the integration's token, the commit, the build's page and a context per pipeline;
 * GitLab, Gitea and Bitbucket each get their own path, words and login; a host that answers 500
 * gets the newest state once it answers again, and the build never waits for it. Builds made
 * by hand report too: one given a commit (on its trigger's repository), its restart, and a
 * branch build of a pipeline in its repository once its engine read the definition at a commit;
 * the status's name follows SLUICE_COMMIT_STATUS_CONTEXT.
 * @module
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useTestDatabases } from '@sluice/db/testing';
import type { CommitStatusReport, SluiceClient } from '@sluice/protocol';
import {
  acknowledge,
  agentClient,
  LOCAL_RUNTIME,
  ONE_KIND,
  SIMPLE_PIPELINE,
  startTestServer,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';
import { deliver, fixture, setUp } from './trigger-deliveries.test-support.js';

const databases = useTestDatabases();
const SHA = '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c';
const NEWLINE = '\n';

interface HostRequest {
  url: string;
  auth: string;
  body: Record<string, unknown>;
}

/** A git host's status API: records each request, or answers 500 while `failing`. */
async function startHost() {
  const requests: HostRequest[] = [];
  const host = { requests, failing: false, refused: 0, url: '', close: () => Promise.resolve() };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (host.failing) {
        host.refused++;
        res.writeHead(500).end('down');
        return;
      }
      const auth = String(req.headers['authorization'] ?? req.headers['private-token'] ?? '');
      requests.push({
        url: req.url ?? '',
        auth,
        body: JSON.parse(body) as Record<string, unknown>,
      });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  host.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return host;
}

async function eventually<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    assert.ok(Date.now() < deadline, `${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A webhook push of SHA to the pipeline, its build reporting through `integration`. */
async function pushedBuild(
  t: TestServer,
  gitTrigger: Awaited<ReturnType<typeof setUp>>['gitTrigger'],
  integration: string,
): Promise<string> {
  const trigger = await gitTrigger({ repo: 'acme/widgets', gitIntegration: integration });
  const pushed = await deliver(t, trigger.id, ['github', 'push', fixture('github-push')]);
  return pushed.body.buildId ?? '';
}

async function engineOf(agent: SluiceClient, t: TestServer, buildId: string) {
  const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
  const task = tasks.find((x) => x.buildId === buildId);
  assert.ok(task !== undefined, 'the build was elected');
  await acknowledge(agent, task);
  return t.client(String(task.spec.engineToken));
}

const at = () => new Date().toISOString();

/** The engines of `buildIds`, their tasks taken and acknowledged as an agent does. */
async function enginesOf(agent: SluiceClient, t: TestServer, buildIds: string[]) {
  const engines = new Map<string, SluiceClient>();
  const deadline = Date.now() + 20_000;
  while (engines.size < buildIds.length) {
    assert.ok(Date.now() < deadline, `elected: ${[...engines.keys()].join(', ')}`);
    const { tasks } = await agent.call('pollTasks', { query: { wait: 1 } });
    for (const task of tasks) {
      const buildId = task.buildId ?? '';
      if (!buildIds.includes(buildId) || engines.has(buildId)) continue;
      await acknowledge(agent, task);
      engines.set(buildId, t.client(String(task.spec.engineToken)));
    }
  }
  return buildIds.map((id) => engines.get(id) as SluiceClient);
}

databases.test(
  'a webhook build reports pending, running and its end on its commit; each host in its own words; a host that was down gets the newest state',
  async (database) => {
    const host = await startHost();
    const t = await startTestServer(database, { commitStatusIntervalMs: 100 });
    try {
      const { gitTrigger } = await setUp(t);
      await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'local', spec: LOCAL_RUNTIME },
      });
      await t.admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
      for (const kind of ['github', 'gitlab', 'gitea', 'bitbucket'] as const)
        await t.admin.call('createGitIntegration', {
          body: {
            name: kind,
            kind,
            url: host.url,
            ...(kind === 'bitbucket' ? { username: 'ci-bot' } : {}),
            token: `${kind}-token-0123456789`,
          },
        });
      const agent = await agentClient(t);

      // GitHub (Enterprise, at the integration's URL): the whole life of a build.
      const buildId = await pushedBuild(t, gitTrigger, 'github');
      const github = `/api/v3/repos/acme/widgets/statuses/${SHA}`;
      const states = () =>
        host.requests.filter((r) => r.url === github).map((r) => r.body['state']);
      await eventually(
        'pending',
        () => Promise.resolve(states()),
        (s) => s.length === 1,
      );
      const [first] = host.requests;
      assert.equal(first?.auth, 'Bearer github-token-0123456789');
      assert.deepEqual(first?.body, {
        state: 'pending',
        target_url: `http://control-plane.test/builds/${buildId}`,
        description: `Sluice build ${buildId}: pending`,
        context: 'sluice/web/app',
      });
      const engine = await engineOf(agent, t, buildId);
      await engine.call('engineEvents', {
        body: { events: [{ type: 'build-started', at: at() }] },
      });
      await eventually(
        'running',
        () => Promise.resolve(states()),
        (s) => s.length === 2,
      );
      // GitHub has no "running": it stays pending, and the build's page says more.
      assert.equal(host.requests.at(-1)?.body['description'], `Sluice build ${buildId}: running`);

      // The host goes down; the build ends anyway, and its end is reported once it is back.
      host.failing = true;
      await engine.call('engineEvents', {
        body: { events: [{ type: 'build-finished', status: 'failure', at: at() }] },
      });
      const build = await t.admin.call('getBuild', { params: { buildId } });
      assert.equal(build.status, 'failure', 'the build did not wait for the host');
      const refusing = await eventually(
        'a refusal recorded',
        () => t.admin.call('getBuildCommitStatus', { params: { buildId } }),
        (r) => (r?.attempts ?? 0) >= 1,
      );
      assert.match(refusing?.lastError ?? '', /answered 500/);
      host.failing = false;
      // Back-off: the next try is at most 2 s after the first refusal.
      const report = (await eventually(
        'the end reported',
        () => t.admin.call('getBuildCommitStatus', { params: { buildId } }),
        (r) => r?.nextAttemptAt === null,
      )) as CommitStatusReport;
      assert.deepEqual(states(), ['pending', 'pending', 'failure']);
      assert.deepEqual(
        report.sent.map((s) => s.state),
        ['pending', 'running', 'failure'],
      );
      assert.deepEqual(
        [report.repo, report.sha, report.context],
        ['acme/widgets', SHA, 'sluice/web/app'],
      );
      assert.equal(report.lastError, null);

      // A build that succeeds: pending, running, success.
      const passing = await pushedBuild(t, gitTrigger, 'github');
      await eventually(
        'pending',
        () => t.admin.call('getBuildCommitStatus', { params: { buildId: passing } }),
        (r) => (r?.sent.length ?? 0) >= 1,
      );
      const passingEngine = await engineOf(agent, t, passing);
      await passingEngine.call('engineEvents', {
        body: { events: [{ type: 'build-started', at: at() }] },
      });
      await eventually(
        'running',
        () => t.admin.call('getBuildCommitStatus', { params: { buildId: passing } }),
        (r) => (r?.sent.length ?? 0) >= 2,
      );
      await passingEngine.call('engineEvents', {
        body: { events: [{ type: 'build-finished', status: 'success', at: at() }] },
      });
      const passed = (await eventually(
        'success',
        () => t.admin.call('getBuildCommitStatus', { params: { buildId: passing } }),
        (r) => r?.nextAttemptAt === null,
      )) as CommitStatusReport;
      assert.deepEqual(
        passed.sent.map((s) => s.state),
        ['pending', 'running', 'success'],
      );
      assert.equal(host.requests.at(-1)?.body['state'], 'success');

      // The other hosts: their paths, logins and words for "pending".
      for (const [integration, path, auth, state] of [
        [
          'gitlab',
          `/api/v4/projects/acme%2Fwidgets/statuses/${SHA}`,
          'gitlab-token-0123456789',
          'pending',
        ],
        [
          'gitea',
          `/api/v1/repos/acme/widgets/statuses/${SHA}`,
          'token gitea-token-0123456789',
          'pending',
        ],
        [
          'bitbucket',
          `/rest/build-status/1.0/commits/${SHA}`,
          `Basic ${Buffer.from('ci-bot:bitbucket-token-0123456789').toString('base64')}`,
          'INPROGRESS',
        ],
      ] as const) {
        await pushedBuild(t, gitTrigger, integration);
        const request = await eventually(
          integration,
          () => Promise.resolve(host.requests.find((r) => r.url === path)),
          (r) => r !== undefined,
        );
        assert.equal(request?.auth, auth, integration);
        assert.equal(request?.body['state'], state, integration);
      }
      const logs = t.logs();
      for (const kind of ['github', 'gitlab', 'gitea', 'bitbucket'])
        assert.ok(!logs.includes(`${kind}-token-0123456789`), 'no token is logged');
    } catch (err) {
      // The server's errors say why a call answered 500.
      const errors = t
        .logs()
        .split(NEWLINE)
        .filter((l) => l.includes('"level":50'));
      throw new Error([String(err), ...errors].join(NEWLINE), { cause: err });
    } finally {
      await t.close();
      await host.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'builds made by hand report on their commit: one given a commit, its restart, and a branch build of a pipeline in its repository once its definition was read; a pinned definition reports nothing',
  async (database) => {
    const host = await startHost();
    const t = await startTestServer(database, {
      commitStatusIntervalMs: 100,
      commitStatusContext: 'ci/{project}-{pipeline}',
    });
    try {
      const { pipeline, gitTrigger } = await setUp(t);
      await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'local', spec: LOCAL_RUNTIME },
      });
      await t.admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
      await t.admin.call('createGitIntegration', {
        body: { name: 'hub', kind: 'github', url: host.url, token: 'hub-token-0123456789' },
      });
      await gitTrigger({ repo: 'acme/widgets', gitIntegration: 'hub' });
      const run = (pipelineId: string, body: { revision?: string; branch?: string }) =>
        t.admin.call('createBuild', { params: { pipelineId }, body });
      const reported = (buildId: string) =>
        eventually(
          `the status of ${buildId}`,
          () => t.admin.call('getBuildCommitStatus', { params: { buildId } }),
          (r) => (r?.sent.length ?? 0) >= 1,
        );

      // By hand with a commit: the repository is the pipeline's trigger's.
      const manual = await run(pipeline.id, { revision: SHA });
      const first = await reported(manual.id);
      assert.deepEqual(
        [first?.integration, first?.repo, first?.sha, first?.context],
        ['hub', 'acme/widgets', SHA, 'ci/web-app'],
      );
      const request = host.requests.find(
        (r) => r.body['description'] === `Sluice build ${manual.id}: pending`,
      );
      assert.equal(request?.url, `/api/v3/repos/acme/widgets/statuses/${SHA}`);
      assert.equal(request?.auth, 'Bearer hub-token-0123456789');
      // A restart builds the same commit, and says so on it.
      const again = await t.admin.call('restartBuild', { params: { buildId: manual.id } });
      assert.equal((await reported(again.id))?.sha, SHA);
      // A branch and no commit: nothing to report on.
      const branch = await run(pipeline.id, { branch: 'main' });
      assert.equal(
        await t.admin.call('getBuildCommitStatus', { params: { buildId: branch.id } }),
        null,
      );
      for (const buildId of [manual.id, again.id, branch.id])
        await t.admin.call('cancelBuild', { params: { buildId } });

      // A pipeline in its repository learns a branch build's commit when its engine reads it.
      const create = (name: string, revision?: string) =>
        t.admin.call('createPipeline', {
          params: { project: 'web' },
          body: {
            name,
            specTemplate: {
              location: 'git',
              repo: 'acme/tools',
              context: 'hub',
              ...(revision === undefined ? {} : { revision }),
            },
          },
        });
      const own = await run((await create('tools')).id, { branch: 'feature' });
      const pinned = await run((await create('pinned', 'main')).id, { branch: 'feature' });
      const READ = 'c0ffee0000000000000000000000000000000001';
      const agent = await agentClient(t);
      const engines = await enginesOf(agent, t, [own.id, pinned.id]);
      // Whether the commit read becomes the build's CF_REVISION: its own branch's head, yes.
      const told = await Promise.all(engines.map((engine) => engine.call('engineBuild')));
      assert.deepEqual(
        told.map((b) => b.specTemplate?.readsBuildCommit),
        [true, false],
      );
      for (const engine of engines)
        await engine.call('engineDefinition', { body: { yaml: SIMPLE_PIPELINE, sha: READ } });
      const tools = await reported(own.id);
      assert.deepEqual(
        [tools?.repo, tools?.sha, tools?.context],
        ['acme/tools', READ, 'ci/web-tools'],
      );
      assert.equal(
        await t.admin.call('getBuildCommitStatus', { params: { buildId: pinned.id } }),
        null,
        "a pinned definition's commit is not the one built",
      );
    } finally {
      await t.close();
      await host.close();
    }
  },
  ONE_KIND,
);
