import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { startTestServer } from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';
import { buildIds, deliver, failure, fixture, setUp } from './trigger-deliveries.test-support.js';

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
);
