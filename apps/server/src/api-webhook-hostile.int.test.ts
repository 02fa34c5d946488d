import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { startTestServer, ONE_KIND } from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';
import { buildIds, deliver, failure, fixture, setUp } from './trigger-deliveries.test-support.js';
import type { Provider } from './trigger-deliveries.test-support.js';

const databases = useTestDatabases();

/** GitHub's push fixture, for another branch. */
function pushTo(branch: string): string {
  const payload = JSON.parse(fixture('github-push')) as Record<string, unknown>;
  return JSON.stringify({ ...payload, ref: `refs/heads/${branch}` });
}

/** Milliseconds each `/api/health` took, polled one after another until `done` settles. */
async function healthWhile(t: TestServer, done: Promise<unknown>): Promise<number[]> {
  let settled = false;
  void done.finally(() => (settled = true));
  const times: number[] = [];
  do {
    const started = performance.now();
    const response = await fetch(`${t.url}/api/health`);
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    times.push(performance.now() - started);
  } while (!settled);
  return times;
}

databases.test(
  'a push whose branch would make /^(a+)+$/ backtrack for ever is answered at once and the server stays responsive',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({ branchFilter: '/^(a+)+$/' });
      const started = performance.now();
      const delivery = deliver(t, trigger.id, ['github', 'push', pushTo(`${'a'.repeat(60)}!`)]);
      const health = await healthWhile(t, delivery);
      const result = await delivery;
      const elapsed = performance.now() - started;
      assert.deepEqual([result.status, result.body.outcome], [200, 'ignored']);
      assert.match(result.body.reason ?? '', /does not match the trigger's branch filter/);
      assert.ok(elapsed < 1_000, `answered in ${Math.round(elapsed)} ms`);
      assert.ok(Math.max(...health) < 1_000, `health answered in ${health.join(', ')} ms`);

      const matching = await deliver(t, trigger.id, ['github', 'push', pushTo('a'.repeat(60))]);
      assert.equal(matching.status, 202, 'the filter still matches what it should');
      assert.equal((await buildIds(database)).length, 1);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a branch filter the linear-time engine cannot run is refused at creation, naming the field and why',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const refused = await failure(gitTrigger({ branchFilter: '/^(?!wip\\/).*$/' }));
      assert.deepEqual(
        [refused.code, refused.status],
        ['SLUICE_TRIGGER_BRANCH_FILTER_INVALID', 422],
      );
      assert.match(
        refused.message,
        /^Branch pattern "\/\^\(\?!wip\\\/\)\.\*\$\/" is not a valid regular expression: .*no lookaround or backreferences/,
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'the same signed delivery sent three times starts one build; the 2nd and 3rd answer 200 duplicate with its id',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({});
      const push: Push = ['github', 'push', fixture('github-push')];
      const headers = { 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' };
      const [first, second, third] = await sequence(3, () =>
        deliver(t, trigger.id, push, { headers }),
      );
      assert.deepEqual([first?.status, first?.body.outcome], [202, 'build-created']);
      const buildId = first?.body.buildId;
      for (const again of [second, third]) {
        assert.deepEqual([again?.status, again?.body.outcome], [200, 'duplicate']);
        assert.equal(again?.body.buildId, buildId, "the answer names the first delivery's build");
        assert.match(again?.body.reason ?? '', /^Delivery 72d3162e-.* was already received at /);
      }
      assert.deepEqual(await buildIds(database), [buildId]);
      assert.match(t.logs(), /"outcome":"duplicate".*"deliveryId":"72d3162e-/);

      const other = await deliver(t, trigger.id, push, { headers: { 'x-github-delivery': 'b' } });
      assert.equal(other.status, 202, 'another delivery id is another delivery');
      const concurrent = await Promise.all(
        [1, 2, 3].map(() =>
          deliver(t, trigger.id, push, { headers: { 'x-github-delivery': 'c' } }),
        ),
      );
      const outcomes = concurrent.map((d) => d.body.outcome).sort();
      assert.deepEqual(outcomes, ['build-created', 'duplicate', 'duplicate'], 'also at once');
      const created = concurrent.find((d) => d.body.outcome === 'build-created');
      for (const d of concurrent) assert.equal(d.body.buildId, created?.body.buildId);
      assert.equal((await buildIds(database)).length, 3);
      const unnamed = await sequence(2, () => deliver(t, trigger.id, push));
      assert.deepEqual(
        unnamed.map((d) => d.status),
        [202, 202],
        'a delivery without an id cannot be told from a new one',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  "GitLab's and Gitea's delivery ids deduplicate too, per trigger",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const gitlab = await gitTrigger({ provider: 'gitlab', events: ['push'] });
      const gitea = await gitTrigger({ provider: 'gitea' });
      const cases: [string, Push, Record<string, string>][] = [
        [gitlab.id, ['gitlab', 'Push Hook', fixture('gitlab-push')], { 'idempotency-key': 'k1' }],
        [
          gitlab.id,
          ['gitlab', 'Push Hook', fixture('gitlab-push')],
          { 'x-gitlab-event-uuid': 'u1' },
        ],
        [gitea.id, ['gitea', 'push', fixture('gitea-push')], { 'x-gitea-delivery': 'k1' }],
      ];
      for (const [triggerId, push, headers] of cases) {
        const answers = await sequence(3, () => deliver(t, triggerId, push, { headers }));
        assert.deepEqual(
          answers.map((a) => [a.status, a.body.outcome]),
          [
            [202, 'build-created'],
            [200, 'duplicate'],
            [200, 'duplicate'],
          ],
          JSON.stringify(headers),
        );
      }
      assert.equal((await buildIds(database)).length, 3, 'the same id on two triggers is two');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a delivery id is remembered for 24 hours: then it starts a build again and old ids are pruned',
  async (database) => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const t = await startTestServer(database, {}, { clock: () => now });
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({});
      const push: Push = ['github', 'push', fixture('github-push')];
      const send = (id: string) =>
        deliver(t, trigger.id, push, { headers: { 'x-github-delivery': id } });
      assert.equal((await send('old')).status, 202);
      now += 24 * 3_600_000 - 1;
      assert.equal((await send('old')).body.outcome, 'duplicate', 'still inside the window');
      assert.equal((await send('new')).status, 202);
      now += 2;
      const again = await send('old');
      assert.deepEqual([again.status, again.body.outcome], [202, 'build-created']);
      now += 24 * 3_600_000 + 1;
      assert.equal((await send('newest')).status, 202);
      const kept = await database.db
        .selectFrom('webhook_deliveries')
        .select('delivery_id')
        .orderBy('delivery_id')
        .execute();
      assert.deepEqual(
        kept.map((r) => r.delivery_id),
        ['newest'],
        'ids older than the window are pruned',
      );
      assert.equal((await buildIds(database)).length, 4);
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

type Push = [Provider, string, string];

/** `count` calls of `send`, each after the previous answered. */
async function sequence<T>(count: number, send: () => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let i = 0; i < count; i++) answers.push(await send());
  return answers;
}
