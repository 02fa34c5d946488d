import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import {
  ADMIN_TOKEN,
  seedPipeline,
  SIMPLE_PIPELINE,
  startEngine,
  startTestServer,
  ONE_KIND,
} from './server-harness.test-support.js';
import { deliver, fixture, setUp } from './trigger-deliveries.test-support.js';

const databases = useTestDatabases(ONE_KIND);

const TOKEN = 'ghp_gitIntegrationToken0123456789abcd';
const NEW_TOKEN = 'glpat-replacedToken-9876543210';
const KEY =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';

type Coded = Error & { code?: string; status?: number; message: string };

/** A pipeline whose one step clones acme/app, with `git` (a line of YAML, or none). */
function cloneWith(git: string): string {
  return ["version: '1.0'", 'steps:', '  clone:', '    type: git-clone', '    repo: acme/app', git]
    .filter((line) => line !== '')
    .join('\n');
}

databases.test(
  'git integrations: created, listed, changed and deleted; tokens encrypted, write-only, given to the engine only',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const first = await t.admin.call('createGitIntegration', {
        body: { name: 'github-main', kind: 'github', token: TOKEN },
      });
      assert.deepEqual(
        [first.name, first.kind, first.url, first.auth, first.default, first.username],
        ['github-main', 'github', 'https://github.com', 'token', true, null],
        "the account's first integration is its default, on the provider's host",
      );
      await t.admin.call('createGitIntegration', {
        body: {
          name: 'gitea',
          kind: 'gitea',
          url: 'https://gitea.example.com',
          username: 'ci',
          sshKey: KEY,
          default: true,
        },
      });
      const listed = await t.admin.call('listGitIntegrations');
      assert.deepEqual(
        listed.items.map((i) => [i.name, i.default, i.auth]),
        [
          ['gitea', true, 'ssh-key'],
          ['github-main', false, 'token'],
        ],
        'a new default takes the mark from the old one',
      );
      const got = await t.admin.call('getGitIntegration', { params: { name: 'github-main' } });
      for (const answer of [first, listed, got])
        assert.ok(
          !JSON.stringify(answer).includes(TOKEN) && !JSON.stringify(answer).includes('b3Bl'),
          'the API returned a secret',
        );

      const rows = await database.db
        .selectFrom('git_integrations')
        .select(['name', 'secret_encrypted'])
        .execute();
      assert.equal(rows.length, 2);
      for (const row of rows) {
        assert.ok(row.secret_encrypted.length > 20, 'no secret stored');
        assert.ok(!row.secret_encrypted.includes(TOKEN), 'the token is stored in clear');
        assert.ok(!row.secret_encrypted.includes('b3Bl'), 'the key is stored in clear');
      }

      const changed = await t.admin.call('updateGitIntegration', {
        params: { name: 'github-main' },
        body: { token: NEW_TOKEN, username: 'bot', default: true },
      });
      assert.deepEqual([changed.username, changed.default], ['bot', true]);

      // A clone that names gitea: gitea, not the default github-main.
      const pipeline = await seedPipeline(t, { yaml: cloneWith('    git: gitea') });
      const { engine } = await startEngine(t, pipeline.id);
      const build = await engine.call('engineBuild');
      assert.deepEqual(build.gitIntegrations, [
        {
          name: 'gitea',
          kind: 'gitea',
          url: 'https://gitea.example.com',
          username: 'ci',
          sshKey: KEY,
          default: false,
        },
      ]);
      // A clone that names none: the default, and only it.
      await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: cloneWith('') },
      });
      const unnamed = await (
        await startEngine(t, pipeline.id, 'agent-2')
      ).engine.call('engineBuild');
      assert.deepEqual(unnamed.gitIntegrations, [
        {
          name: 'github-main',
          kind: 'github',
          url: 'https://github.com',
          username: 'bot',
          token: NEW_TOKEN,
          default: true,
        },
      ]);
      // A pipeline that clones nothing gets none.
      await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: SIMPLE_PIPELINE },
      });
      const none = await (await startEngine(t, pipeline.id, 'agent-3')).engine.call('engineBuild');
      assert.deepEqual(none.gitIntegrations, []);
      await assert.rejects(
        engine.call('listGitIntegrations'),
        (err: Coded & { category?: string }) =>
          err.category === 'not-allowed' || err.category === 'authentication',
        'an engine token reached a user route',
      );
      for (const secret of [TOKEN, NEW_TOKEN, 'b3Bl'])
        assert.ok(!t.logs().includes(secret), `a secret was logged: ${secret}`);

      await t.admin.call('deleteGitIntegration', { params: { name: 'gitea' } });
      await assert.rejects(
        t.admin.call('getGitIntegration', { params: { name: 'gitea' } }),
        (err: Coded) =>
          err.code === 'SLUICE_GIT_INTEGRATION_NOT_FOUND' && /"gitea"/.test(err.message),
      );
      await assert.rejects(
        t.admin.call('deleteGitIntegration', { params: { name: 'gitea' } }),
        (err: Coded) => err.code === 'SLUICE_GIT_INTEGRATION_NOT_FOUND',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'git integrations: bad input is refused with 400 or 409 naming the field',
  async (database) => {
    const t = await startTestServer(database);
    try {
      await t.admin.call('createGitIntegration', {
        body: { name: 'lab', kind: 'gitlab', token: TOKEN },
      });
      await assert.rejects(
        t.admin.call('createGitIntegration', {
          body: { name: 'lab', kind: 'gitlab', token: TOKEN },
        }),
        (err: Coded) => err.code === 'SLUICE_GIT_INTEGRATION_EXISTS' && /"lab"/.test(err.message),
      );
      const refused = async (body: Record<string, unknown>, pattern: RegExp) => {
        const res = await fetch(`${t.url}/api/v1/git-integrations`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        assert.equal(res.status, 400, text);
        assert.match(text, pattern);
        assert.ok(!text.includes(TOKEN), 'the refusal echoed the token');
      };
      await refused({ name: 'Bad Name', kind: 'github', token: TOKEN }, /name/);
      await refused({ name: 'x', kind: 'svn', token: TOKEN }, /kind/);
      await refused({ name: 'x', kind: 'github' }, /exactly one of token and sshKey/);
      await refused({ name: 'x', kind: 'github', token: TOKEN, sshKey: KEY }, /exactly one/);
      await refused({ name: 'x', kind: 'gitea', token: TOKEN }, /gitea integration needs url/);
      await refused({ name: 'x', kind: 'git', url: 'https://u:p@h/x', token: TOKEN }, /url/);
      await refused({ name: 'x', kind: 'git', url: 'https://h', sshKey: 'not a key' }, /PEM block/);
      const other = t.client('slu_u_not-a-real-token-0123456789');
      await assert.rejects(
        other.call('listGitIntegrations'),
        (err: Coded & { category?: string }) => err.category === 'authentication',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a git trigger names its git integration; one the account lacks is refused',
  async (database) => {
    const t = await startTestServer(database);
    try {
      await t.admin.call('createGitIntegration', {
        body: { name: 'github-main', kind: 'github', token: TOKEN },
      });
      const pipeline = await seedPipeline(t);
      const trigger = await t.admin.call('createTrigger', {
        params: { pipelineId: pipeline.id },
        body: {
          kind: 'git',
          provider: 'github',
          repo: 'acme/app',
          events: ['push'],
          secret: 'webhook-secret-0123456789',
          gitIntegration: 'github-main',
        },
      });
      assert.equal(trigger.gitIntegration, 'github-main');
      const listed = await t.admin.call('listTriggers', { params: { pipelineId: pipeline.id } });
      assert.deepEqual(
        listed.items.map((i) => i.gitIntegration),
        ['github-main'],
      );
      const cron = await t.admin.call('createTrigger', {
        params: { pipelineId: pipeline.id },
        body: { kind: 'cron', cron: '0 3 * * *' },
      });
      assert.equal(cron.gitIntegration, null);
      await assert.rejects(
        t.admin.call('createTrigger', {
          params: { pipelineId: pipeline.id },
          body: {
            kind: 'git',
            provider: 'github',
            events: ['push'],
            secret: 'webhook-secret-0123456789',
            gitIntegration: 'nope',
          },
        }),
        (err: Coded) =>
          err.code === 'SLUICE_GIT_INTEGRATION_NOT_FOUND' && /"nope"/.test(err.message),
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  "a webhook build carries its trigger's git integration, which clones where a step names none",
  async (database) => {
    const t = await startTestServer(database);
    try {
      await t.admin.call('createGitIntegration', {
        body: { name: 'github-main', kind: 'github', token: TOKEN },
      });
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({ gitIntegration: 'github-main' });
      const result = await deliver(t, trigger.id, ['github', 'push', fixture('github-push')]);
      assert.equal(result.body.outcome, 'build-created');
      const row = await database.db
        .selectFrom('builds')
        .select('facts')
        .where('id', '=', result.body.buildId ?? '')
        .executeTakeFirstOrThrow();
      assert.equal((row.facts as Record<string, string>).gitIntegration, 'github-main');
    } finally {
      await t.close();
    }
  },
);
