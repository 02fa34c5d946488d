import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { useTestDatabases } from '@sluice/db/testing';
import { exportSecretKey, generateSecretKey } from '@sluice/pki';
import { matchesBranchFilter } from '@sluice/triggers';
import { startTestServer, ONE_KIND } from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';
import {
  buildIds,
  deliver,
  failure,
  fixture,
  fixtureVariant,
  setUp,
} from './trigger-deliveries.test-support.js';
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

/** Ten counted repetitions: RE2 compiles some 4,000 instructions, slow to compile and to run. */
const HEAVY_FILTER = `/^${'[a-z0-9-]{0,200}'.repeat(10)}$/`;

databases.test(
  'a branch filter RE2 compiles to too large a program is refused at creation, naming its size',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const refused = await failure(gitTrigger({ branchFilter: HEAVY_FILTER }));
      assert.deepEqual(
        [refused.code, refused.status],
        ['SLUICE_TRIGGER_BRANCH_FILTER_INVALID', 422],
      );
      assert.match(
        refused.message,
        /is too complex: RE2 compiles it to 4,0\d\d instructions, more than 2,000/,
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  'a heavy branch filter saved before that check is matched off the event loop, each delivery',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const trigger = await gitTrigger({ branchFilter: '/^main$/' });
      await database.db
        .updateTable('triggers')
        .set({ branch_filter: HEAVY_FILTER })
        .where('id', '=', trigger.id)
        .execute();
      // Long enough that matching (about 200 ms quiet, 500 under load) stands well above what a
      // loaded machine stalls the event loop for anyway (80 ms seen on a fresh CI machine).
      const branch = 'a'.repeat(600);
      // What matching holds a thread for, warm: compiling the filter, then one branch name.
      let baselineMs = Infinity;
      for (let i = 0; i < 2; i++) {
        const started = performance.now();
        assert.equal(matchesBranchFilter(HEAVY_FILTER, branch), true);
        baselineMs = Math.min(baselineMs, performance.now() - started);
      }
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const answers = [];
      for (let i = 0; i < 2; i++)
        answers.push(await deliver(t, trigger.id, ['github', 'push', pushTo(`${branch}`)]));
      delay.disable();
      assert.deepEqual(
        answers.map((a) => [a.status, a.body.outcome]),
        [
          [202, 'build-created'],
          [200, 'duplicate'],
        ],
      );
      const maxDelayMs = delay.max / 1e6;
      assert.ok(
        maxDelayMs < baselineMs / 2,
        `the event loop stalled ${Math.round(maxDelayMs)} ms; matching takes ${Math.round(baselineMs)} ms`,
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

      const other = await deliver(
        t,
        trigger.id,
        ['github', 'push', fixtureVariant('github-push', 'b')],
        {
          headers: { 'x-github-delivery': 'b' },
        },
      );
      assert.equal(other.status, 202, 'another delivery id with its own body is another delivery');
      const concurrent = await Promise.all(
        [1, 2, 3].map(() =>
          deliver(t, trigger.id, ['github', 'push', fixtureVariant('github-push', 'c')], {
            headers: { 'x-github-delivery': 'c' },
          }),
        ),
      );
      const outcomes = concurrent.map((d) => d.body.outcome).sort();
      assert.deepEqual(outcomes, ['build-created', 'duplicate', 'duplicate'], 'also at once');
      const created = concurrent.find((d) => d.body.outcome === 'build-created');
      for (const d of concurrent) assert.equal(d.body.buildId, created?.body.buildId);
      assert.equal((await buildIds(database)).length, 3);
      const fresh: Push = ['github', 'push', fixtureVariant('github-push', 'unnamed')];
      const unnamed = await sequence(2, () => deliver(t, trigger.id, fresh));
      assert.deepEqual(
        unnamed.map((d) => [d.status, d.body.outcome]),
        [
          [202, 'build-created'],
          [200, 'duplicate'],
        ],
        'a delivery without an id is known by its signed bytes',
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
          ['gitlab', 'Push Hook', fixtureVariant('gitlab-push', 'u1')],
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
      // Each id with bytes of its own: only the id is remembered-or-not here.
      const send = (id: string) =>
        deliver(t, trigger.id, ['github', 'push', fixtureVariant('github-push', id)], {
          headers: { 'x-github-delivery': id },
        });
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

databases.test(
  'the same signed body starts one build whatever delivery id comes with it, or none; GitLab token-only hooks too',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { gitTrigger } = await setUp(t);
      const github = await gitTrigger({});
      const push: Push = ['github', 'push', fixture('github-push')];
      const send = (headers: Record<string, string>) => deliver(t, github.id, push, { headers });
      const first = await send({ 'x-github-delivery': 'a' });
      assert.equal(first.status, 202);
      const replays: Record<string, string>[] = [
        { 'x-github-delivery': 'replayed-with-a-new-id' },
        {},
      ];
      for (const headers of replays) {
        const replay = await send(headers);
        assert.deepEqual([replay.status, replay.body.outcome], [200, 'duplicate']);
        assert.equal(replay.body.buildId, first.body.buildId);
        assert.match(
          replay.body.reason ?? '',
          /^The same signed body \(SHA-256 [0-9a-f]{12}…\) was already received at .*: it started build /,
        );
      }
      const gitlab = await gitTrigger({ provider: 'gitlab', events: ['push'] });
      const hook: Push = ['gitlab', 'Push Hook', fixture('gitlab-push')];
      const answers = [
        await deliver(t, gitlab.id, hook),
        await deliver(t, gitlab.id, hook),
        await deliver(t, gitlab.id, hook, { headers: { 'idempotency-key': 'new' } }),
      ];
      assert.deepEqual(
        answers.map((a) => a.body.outcome),
        ['build-created', 'duplicate', 'duplicate'],
      );
      const other = await deliver(t, github.id, [
        'github',
        'push',
        fixtureVariant('github-push', 'x'),
      ]);
      assert.equal(other.status, 202, 'other bytes are another delivery');
      assert.equal((await buildIds(database)).length, 3);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'the digests of signed bodies outlive a restart and are shared by replicas; old ones are pruned',
  async (database) => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const clock = { clock: () => now };
    // One key, as replicas and restarts share: the trigger's secret is encrypted with it.
    const key = { secretKey: exportSecretKey(generateSecretKey()) };
    const first = await startTestServer(database, key, clock);
    let second: TestServer | undefined;
    try {
      const { gitTrigger } = await setUp(first);
      const trigger = await gitTrigger({});
      const push: Push = ['github', 'push', fixture('github-push')];
      assert.equal((await deliver(first, trigger.id, push)).status, 202);
      await first.close();
      second = await startTestServer(database, key, clock);
      const replica = await startTestServer(database, key, clock);
      try {
        for (const server of [second, replica]) {
          const replay = await deliver(server, trigger.id, push);
          assert.deepEqual([replay.status, replay.body.outcome], [200, 'duplicate']);
        }
      } finally {
        await replica.close();
      }
      now += 24 * 3_600_000 + 1;
      const later = await deliver(second, trigger.id, [
        'github',
        'push',
        fixtureVariant('github-push', 'later'),
      ]);
      assert.equal(later.status, 202);
      const kept = await database.db.selectFrom('webhook_bodies').select('digest').execute();
      assert.equal(kept.length, 1, 'the digest older than the window was pruned');
      const again = await deliver(second, trigger.id, push);
      assert.equal(again.status, 202, 'a body forgotten after the window starts a build again');
    } finally {
      await (second ?? first).close();
    }
  },
);

type Push = [Provider, string, string];

/** `count` calls of `send`, each after the previous answered. */
async function sequence<T>(count: number, send: () => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let i = 0; i < count; i++) answers.push(await send());
  return answers;
}
