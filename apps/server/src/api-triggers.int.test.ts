import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { createClient } from '@sluice/protocol';
import type { CreateTrigger } from '@sluice/protocol';
import { startTestServer, ONE_KIND } from './server-harness.test-support.js';
import {
  SECRET,
  buildIds,
  deliver,
  failure,
  fixture,
  setUp,
  signedHeaders,
} from './trigger-deliveries.test-support.js';
import type { Delivery, Provider } from './trigger-deliveries.test-support.js';

const databases = useTestDatabases();

databases.test(
  'a signed GitHub push creates a webhook build with the branch, revision and facts of its payload (202)',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({
        repo: 'acme/widgets',
        branchFilter: '/^feature\\//',
        variables: { DEPLOY: 'no' },
      });
      assert.equal(trigger.webhookUrl, `http://control-plane.test/api/webhooks/${trigger.id}`);
      const result = await deliver(t, trigger.id, ['github', 'push', fixture('github-push')]);
      assert.equal(result.status, 202);
      assert.equal(result.body.outcome, 'build-created');
      const build = await t.admin.call('getBuild', {
        params: { buildId: result.body.buildId ?? '' },
      });
      assert.deepEqual(
        [build.trigger, build.branch, build.revision, build.initiator],
        ['webhook', 'feature/login-form', '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c', 'octocat'],
      );
      assert.deepEqual(build.variables, { DEPLOY: 'no' });
      const row = await database.db
        .selectFrom('builds')
        .select('facts')
        .where('id', '=', build.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row.facts, {
        repoOwner: 'acme',
        repoName: 'widgets',
        initiator: 'octocat',
        trigger: 'webhook',
        branch: 'feature/login-form',
        revision: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
        commitAuthor: 'monalisa',
        commitMessage: 'Add login form\n\nValidates the e-mail field "as you type".',
        commitUrl:
          'https://github.com/acme/widgets/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
      });
      const form = `payload=${encodeURIComponent(fixture('github-push'))}`;
      const formResult = await deliver(t, trigger.id, ['github', 'push', form], {
        contentType: 'application/x-www-form-urlencoded',
      });
      assert.equal(formResult.status, 202, "GitHub's form encoding is accepted");
      assert.match(
        t.logs(),
        new RegExp(
          `"triggerId":"${trigger.id}","provider":"github","event":"push","outcome":"build-created".*"msg":"webhook received"`,
        ),
      );
      assert.ok(!t.logs().includes(SECRET), 'the secret is never logged');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a bad signature is 401 and creates no build; unknown and disabled triggers are the same 404',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({});
      const push: [Provider, string, string] = ['github', 'push', fixture('github-push')];
      const forged = await deliver(t, trigger.id, push, { secret: 'another-secret-0123456789' });
      assert.deepEqual(
        [forged.status, forged.body.error?.code],
        [401, 'SLUICE_WEBHOOK_SIGNATURE_INVALID'],
      );
      const tampered = await fetch(`${t.url}/api/webhooks/${trigger.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
        body: fixture('github-push'),
      });
      const unsigned = (await tampered.json()) as Delivery['body'] & { error: { message: string } };
      assert.equal(tampered.status, 401);
      assert.doesNotMatch(unsigned.error.message, /header|X-Hub/i, 'no detail of what was wrong');
      assert.deepEqual(await buildIds(database), []);

      const unknown = await deliver(t, 'trg_unknown', push);
      assert.deepEqual(
        [unknown.status, unknown.body.error?.code],
        [404, 'SLUICE_TRIGGER_NOT_FOUND'],
      );
      await database.db
        .updateTable('triggers')
        .set({ enabled: false })
        .where('id', '=', trigger.id)
        .execute();
      const disabled = await deliver(t, trigger.id, push);
      assert.deepEqual(
        [disabled.status, disabled.body.error?.code],
        [404, 'SLUICE_TRIGGER_NOT_FOUND'],
      );
      assert.deepEqual(await buildIds(database), []);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a ping answers 200; an unknown event, an unwanted tag and a branch outside the filter are ignored with the reason',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({ branchFilter: '/^main$/' });
      const ping = await deliver(t, trigger.id, ['github', 'ping', fixture('github-ping')]);
      assert.deepEqual([ping.status, ping.body], [200, { outcome: 'ping' }]);
      const cases: [string, string, RegExp][] = [
        ['issues', 'github-issues', /GitHub event "issues" does not trigger builds/],
        [
          'push',
          'github-push-tag',
          /Event "tag" is not one of this trigger's events \(push, pull_request\)/,
        ],
        ['push', 'github-push', /Branch "feature\/login-form" does not match .*\/\^main\$\//],
      ];
      for (const [event, name, reason] of cases) {
        const result = await deliver(t, trigger.id, ['github', event, fixture(name)]);
        assert.deepEqual([result.status, result.body.outcome], [200, 'ignored'], name);
        assert.match(result.body.reason ?? '', reason);
      }
      const other = await gitTrigger({ repo: 'acme/gadgets' });
      const elsewhere = await deliver(t, other.id, ['github', 'push', fixture('github-push')]);
      assert.match(elsewhere.body.reason ?? '', /Repository acme\/widgets is not/);
      assert.deepEqual(await buildIds(database), []);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  "GitLab's token and Gitea's signature are accepted, through the typed client too",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const gitlab = await gitTrigger({ provider: 'gitlab', events: ['push', 'tag'] });
      const pushed = await deliver(t, gitlab.id, ['gitlab', 'Push Hook', fixture('gitlab-push')]);
      assert.equal(pushed.status, 202);
      const tag = await deliver(t, gitlab.id, [
        'gitlab',
        'Tag Push Hook',
        fixture('gitlab-tag-push'),
      ]);
      const tagBuild = await t.admin.call('getBuild', {
        params: { buildId: tag.body.buildId ?? '' },
      });
      assert.deepEqual(
        [tagBuild.branch, tagBuild.variables],
        ['v2.0.0', { CF_RELEASE_TAG: 'v2.0.0' }],
      );

      const gitea = await gitTrigger({ provider: 'gitea' });
      const payload = JSON.parse(fixture('gitea-push')) as Record<string, unknown>;
      const anonymous = createClient({ baseUrl: t.url });
      const result = await anonymous.call('receiveWebhook', {
        params: { triggerId: gitea.id },
        body: payload,
        headers: signedHeaders('gitea', 'push', JSON.stringify(payload)),
      });
      assert.equal(result.outcome, 'build-created');
      const build = await t.admin.call('getBuild', { params: { buildId: result.buildId ?? '' } });
      assert.deepEqual([build.branch, build.initiator], ['develop', 'kimlee']);
      const forged = await failure(
        anonymous.call('receiveWebhook', {
          params: { triggerId: gitea.id },
          body: payload,
          headers: signedHeaders('gitea', 'push', '{}'),
        }),
      );
      assert.deepEqual([forged.code, forged.status], ['SLUICE_WEBHOOK_SIGNATURE_INVALID', 401]);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a pull request maps CF_PULL_REQUEST_* into the build variables',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({ events: ['pull_request'], variables: { SUITE: 'full' } });
      const result = await deliver(t, trigger.id, [
        'github',
        'pull_request',
        fixture('github-pull-request'),
      ]);
      assert.equal(result.status, 202);
      const build = await t.admin.call('getBuild', {
        params: { buildId: result.body.buildId ?? '' },
      });
      assert.deepEqual(
        [build.branch, build.revision],
        ['feature/login-form', '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c'],
      );
      assert.equal(build.variables.SUITE, 'full');
      assert.equal(build.variables.CF_PULL_REQUEST_ACTION, 'opened');
      assert.equal(build.variables.CF_PULL_REQUEST_NUMBER, '42');
      assert.equal(build.variables.CF_PULL_REQUEST_TARGET, 'main');
      assert.equal(build.variables.CF_PULL_REQUEST_HEAD_BRANCH, 'feature/login-form');
      assert.equal(build.variables.CF_PULL_REQUEST_MERGED, 'false');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a cron trigger fires exactly once for concurrent fireDue calls, advances next_run_at, and fires a missed run once',
  async (database) => {
    const start = Date.parse('2030-01-01T00:00:30Z');
    const t = await startTestServer(database, {}, { clock: () => start });
    try {
      const { pipeline } = await setUp(t);
      const trigger = await t.admin.call('createTrigger', {
        params: { pipelineId: pipeline.id },
        body: { kind: 'cron', cron: '* * * * *', branch: 'main', variables: { NIGHTLY: '1' } },
      });
      assert.deepEqual(
        [trigger.nextRunAt, trigger.branch, trigger.variables, trigger.webhookUrl],
        ['2030-01-01T00:01:00.000Z', 'main', { NIGHTLY: '1' }, null],
      );
      const cron = t.server.services.cron;
      assert.deepEqual((await cron.fireDue({ now: new Date(start) })).fired, [], 'not due yet');
      const now = new Date(start + 61_000);
      const [a, b] = await Promise.all([cron.fireDue({ now }), cron.fireDue({ now })]);
      assert.equal(a.fired.length + b.fired.length, 1, 'fired exactly once');
      const [buildId] = await buildIds(database);
      const build = await t.admin.call('getBuild', { params: { buildId: buildId ?? '' } });
      assert.deepEqual(
        [build.trigger, build.branch, build.variables],
        ['cron', 'main', { NIGHTLY: '1' }],
      );
      const listed = await t.admin.call('listTriggers', { params: { pipelineId: pipeline.id } });
      assert.equal(listed.items[0]?.nextRunAt, '2030-01-01T00:02:00.000Z');

      const hoursLater = new Date(start + 3 * 3_600_000);
      assert.equal((await cron.fireDue({ now: hoursLater })).fired.length, 1, 'once, not per slot');
      assert.equal((await cron.fireDue({ now: hoursLater })).fired.length, 0);
      const after = await t.admin.call('listTriggers', { params: { pipelineId: pipeline.id } });
      assert.equal(after.items[0]?.nextRunAt, '2030-01-01T03:01:00.000Z');
      assert.equal((await buildIds(database)).length, 2);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'bad cron and branch regexes are 422 naming where; secrets are never returned nor stored in clear',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { pipeline, gitTrigger } = await setUp(t);
      const create = (body: CreateTrigger) =>
        t.admin.call('createTrigger', { params: { pipelineId: pipeline.id }, body });
      const range = await failure(create({ kind: 'cron', cron: '61 * * * *' }));
      assert.deepEqual([range.code, range.status], ['SLUICE_CRON_INVALID', 422]);
      assert.match(range.message, /"61 \* \* \* \*" is invalid at column 1: Minute 61/);
      const fields = await failure(create({ kind: 'cron', cron: '* * * *' }));
      assert.match(fields.message, /column 8/);
      const regex = await failure(gitTrigger({ branchFilter: '/[/' }));
      assert.deepEqual([regex.code, regex.status], ['SLUICE_TRIGGER_BRANCH_FILTER_INVALID', 422]);
      const short = await failure(gitTrigger({ secret: 'too-short' }));
      assert.deepEqual([short.code, short.status], ['SLUICE_REQUEST_INVALID', 400]);

      const trigger = await gitTrigger({});
      const listed = await t.admin.call('listTriggers', { params: { pipelineId: pipeline.id } });
      assert.deepEqual(
        listed.items.map((i) => i.id),
        [trigger.id],
      );
      assert.ok(!JSON.stringify(listed).includes(SECRET) && !('secret' in trigger));
      const row = await database.db
        .selectFrom('triggers')
        .select('secret_encrypted')
        .where('id', '=', trigger.id)
        .executeTakeFirstOrThrow();
      assert.match(row.secret_encrypted ?? '', /^v1:/);
      assert.ok(!(row.secret_encrypted ?? '').includes(SECRET));

      await t.admin.call('deleteTrigger', { params: { triggerId: trigger.id } });
      const gone = await failure(
        t.admin.call('deleteTrigger', { params: { triggerId: trigger.id } }),
      );
      assert.deepEqual([gone.code, gone.status], ['SLUICE_TRIGGER_NOT_FOUND', 404]);
      const posted = await deliver(t, trigger.id, ['github', 'push', fixture('github-push')]);
      assert.equal(posted.status, 404);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);
