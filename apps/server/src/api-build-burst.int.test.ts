import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { seedPipeline, seedPipelines, startTestServer } from './server-harness.test-support.js';

const databases = useTestDatabases();

const BURST = 30;

databases.test(
  'a burst of builds of one pipeline: each answer is elected, numbers run 1..N once, one RunEngine task each, the list pages them newest first',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const created = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          t.admin.call('createBuild', {
            params: { pipelineId: pipeline.id },
            body: { branch: `b${i}` },
          }),
        ),
      );
      // Every request waits for a scheduler pass that started after its build was committed.
      assert.deepEqual(new Set(created.map((b) => b.status)), new Set(['elected']));
      assert.deepEqual(
        created.map((b) => b.number).sort((a, b) => a - b),
        Array.from({ length: BURST }, (_, i) => i + 1),
      );
      const tasks = await database.db
        .selectFrom('tasks')
        .select(['build_id', 'type', 'position'])
        .execute();
      assert.equal(tasks.length, BURST);
      assert.deepEqual(new Set(tasks.map((task) => task.type)), new Set(['RunEngine']));
      assert.equal(new Set(tasks.map((task) => task.build_id)).size, BURST);

      const first = await t.admin.call('listBuilds', { query: { limit: 20 } });
      const rest = await t.admin.call('listBuilds', {
        query: { limit: 20, cursor: first.nextCursor ?? undefined },
      });
      assert.equal(rest.nextCursor, null);
      const listed = [...first.items, ...rest.items];
      const byIdDesc = created.map((b) => b.id).sort((a, b) => b.localeCompare(a));
      assert.deepEqual(
        listed.map((b) => b.id),
        byIdDesc,
      );
      for (const build of listed) {
        const made = created.find((b) => b.id === build.id);
        assert.equal(build.branch, made?.branch);
        assert.equal(build.pipeline, 'app');
        assert.equal(build.project, 'web');
        assert.deepEqual(
          build.steps.map((s) => s.name),
          made?.steps.map((s) => s.name),
          'each build listed with its own steps',
        );
      }
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a burst past the pipeline limit: builds are elected up to the limit and the others wait with the reason',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t, { maxConcurrentBuilds: 3 });
      await Promise.all(
        Array.from({ length: 10 }, () =>
          t.admin.call('createBuild', { params: { pipelineId: pipeline.id }, body: {} }),
        ),
      );
      const { items } = await t.admin.call('listBuilds', { query: { limit: 50 } });
      assert.equal(items.filter((b) => b.status === 'elected').length, 3);
      const waiting = items.filter((b) => b.status === 'pending');
      assert.equal(waiting.length, 7);
      for (const build of waiting)
        assert.equal(build.reason, 'Waiting: the pipeline allows 3 concurrent build(s)');
      const tasks = await database.db.selectFrom('tasks').select('build_id').execute();
      assert.equal(tasks.length, 3);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a build its runtime cannot run frees its place in the same pass: the next build takes it, the one after waits',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const [bad, good] = await seedPipelines(t, { pipelines: ['bad', 'good'] });
      assert.ok(bad !== undefined && good !== undefined);
      // Nothing can be elected yet: the builds wait together for one pass.
      await database.db.updateTable('accounts').set({ default_runtime: null }).execute();
      const create = (pipelineId: string) =>
        t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      const doomed = await create(bad.id);
      const first = await create(good.id);
      await database.db
        .updateTable('pipelines')
        .set({ runtime_environment: 'no-such-runtime' })
        .where('id', '=', bad.id)
        .execute();
      await database.db
        .updateTable('accounts')
        .set({ default_runtime: 'local', max_concurrent_builds: 1 })
        .execute();

      const second = await create(good.id);
      const status = async (id: string) => {
        const build = await t.admin.call('getBuild', { params: { buildId: id } });
        return [build.status, build.reason];
      };
      assert.equal((await status(doomed.id))[0], 'error');
      assert.deepEqual(await status(first.id), ['elected', null]);
      assert.deepEqual(await status(second.id), [
        'pending',
        'Waiting: the account allows 1 concurrent build(s)',
      ]);
    } finally {
      await t.close();
    }
  },
);
