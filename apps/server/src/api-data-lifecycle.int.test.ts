import assert from 'node:assert/strict';
import { sql } from '@sluice/db';
import type { Database } from '@sluice/db';
import { useTestDatabases } from '@sluice/db/testing';
import { isSluiceError } from '@sluice/errors';
import { ADMIN_TOKEN, seedPipelines, startTestServer } from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';

const databases = useTestDatabases();

/** Tables whose rows refer to a build, and the column that does. */
const BUILD_CHILDREN = [
  ['build_steps', 'build_id'],
  ['build_log_chunks', 'build_id'],
  ['build_control', 'build_id'],
  ['tasks', 'build_id'],
  ['commit_statuses', 'build_id'],
  ['api_tokens', 'subject_id'],
] as const;

interface OldBuilds {
  /** Numbers `from` to `from + count - 1`. */
  count: number;
  from?: number;
  /** How long ago they were created; now by default. */
  daysAgo?: number;
  status?: string;
  /** Log chunks per build, 100 bytes each. */
  chunks?: number;
}

/**
 * Builds of a pipeline as years of history leave them, written straight to the database (an
 * API build takes a scheduling pass each): each with a step, `chunks` log chunks, an approval,
 * a task, a commit status and an engine token. Their ids.
 */
async function history(database: Database, pipelineId: string, spec: OldBuilds) {
  const from = spec.from ?? 1;
  const ids = Array.from(
    { length: spec.count },
    (_, i) => `bld_${pipelineId.slice(4)}_${from + i}`,
  );
  const created = new Date(Date.now() - (spec.daysAgo ?? 0) * 86_400_000);
  const status = spec.status ?? 'success';
  await sql`insert into builds (id, account_id, pipeline_id, number, status, trigger, created_at,
      finished_at)
    select b.id, p.account_id, p.id, ${from} + b.n - 1, ${status}, 'manual',
      ${created}::timestamptz, ${created}::timestamptz
    from pipelines p, unnest(${ids}::text[]) with ordinality as b(id, n)
    where p.id = ${pipelineId}`.execute(database.db);
  await sql`update pipelines set last_build_number = greatest(last_build_number,
    ${from + spec.count - 1}) where id = ${pipelineId}`.execute(database.db);
  await sql`insert into build_steps (build_id, name, position, status)
    select id, 'build', 0, 'success' from unnest(${ids}::text[]) as b(id)`.execute(database.db);
  await sql`insert into build_log_chunks (build_id, seq, lines, byte_size)
    select b.id, s, '[]'::jsonb, 100
    from unnest(${ids}::text[]) as b(id), generate_series(0, ${(spec.chunks ?? 2) - 1}) as s`.execute(
    database.db,
  );
  await sql`insert into build_control (build_id, kind, step, actor)
    select id, 'approve', 'deploy', 'admin' from unnest(${ids}::text[]) as b(id)`.execute(
    database.db,
  );
  await sql`insert into tasks (id, account_id, build_id, runtime, type, spec, status)
    select 'tsk_' || b.id, p.account_id, b.id, 'local', 'RunEngine', '{}', 'done'
    from pipelines p, unnest(${ids}::text[]) as b(id) where p.id = ${pipelineId}`.execute(
    database.db,
  );
  await sql`insert into commit_statuses (build_id, account_id, integration, repo, sha, context)
    select b.id, p.account_id, 'github', 'acme/web', 'abc', 'sluice'
    from pipelines p, unnest(${ids}::text[]) as b(id) where p.id = ${pipelineId}`.execute(
    database.db,
  );
  await sql`insert into api_tokens (id, account_id, kind, subject_id, name, token_hash,
      token_prefix)
    select 'tok_' || b.id, p.account_id, 'engine', b.id, 'engine', md5(b.id), 'slu_e'
    from pipelines p, unnest(${ids}::text[]) as b(id) where p.id = ${pipelineId}`.execute(
    database.db,
  );
  return ids;
}

/** How many rows of `ids` are left in builds and in each table that refers to a build. */
async function leftOf(database: Database, ids: readonly string[]): Promise<Record<string, number>> {
  const left: Record<string, number> = {};
  for (const [table, column] of [['builds', 'id'] as const, ...BUILD_CHILDREN]) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}
      where ${sql.ref(column)} = any(${[...ids]}::text[])`.execute(database.db);
    left[table] = rows[0]?.n ?? -1;
  }
  return left;
}

function none(): Record<string, number> {
  const tables: string[] = ['builds', ...BUILD_CHILDREN.map(([table]) => table)];
  return Object.fromEntries(tables.map((table): [string, number] => [table, 0]));
}

async function statusOf(
  call: Promise<unknown>,
): Promise<{ code: string; message: string; hint?: string }> {
  try {
    await call;
  } catch (err) {
    if (isSluiceError(err)) return { code: err.code, message: err.message, hint: err.hint };
    throw err;
  }
  assert.fail('the call succeeded');
}

databases.test(
  'deleting a pipeline takes its builds and all that refers to them, in batches, and counts them',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const [app, other] = await seedPipelines(t, { pipelines: ['app', 'other'] });
      assert.ok(app && other);
      // More than a batch (DELETE_BATCH, 50): the delete goes round several times.
      const ids = await history(database, app.id, { count: 120, chunks: 2 });
      const kept = await history(database, other.id, { count: 3 });

      const dry = await t.admin.call('deletePipeline', {
        params: { pipelineId: app.id },
        query: { dryRun: 'true' },
      });
      assert.deepEqual(dry, {
        dryRun: true,
        pipelines: 1,
        builds: 120,
        logChunks: 240,
        logBytes: 24_000,
      });
      assert.equal((await leftOf(database, ids)).builds, 120, 'a dry run deletes nothing');

      const deleted = await t.admin.call('deletePipeline', { params: { pipelineId: app.id } });
      assert.deepEqual(deleted, {
        dryRun: false,
        pipelines: 1,
        builds: 120,
        logChunks: 240,
        logBytes: 24_000,
      });
      assert.deepEqual(await leftOf(database, ids), none());
      const gone = await statusOf(t.admin.call('getPipeline', { params: { pipelineId: app.id } }));
      assert.equal(gone.code, 'SLUICE_PIPELINE_NOT_FOUND');
      const build = await statusOf(t.admin.call('getBuild', { params: { buildId: ids[0] ?? '' } }));
      assert.equal(build.code, 'SLUICE_BUILD_NOT_FOUND');
      // Another pipeline's history is not touched.
      assert.equal((await leftOf(database, kept)).build_log_chunks, 6);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a build not finished blocks the delete of its pipeline or project: 409 naming it, nothing deleted',
  async (database) => {
    const t = await startTestServer(database);
    try {
      const [app] = await seedPipelines(t);
      assert.ok(app);
      const ids = await history(database, app.id, { count: 60 });
      // Elected on the local runtime no agent serves: it stays so.
      const active = await t.admin.call('createBuild', {
        params: { pipelineId: app.id },
        body: {},
      });
      // One call at a time: a call made before its turn would reject with no one awaiting it.
      for (const call of [
        () => t.admin.call('deletePipeline', { params: { pipelineId: app.id } }),
        () =>
          t.admin.call('deletePipeline', {
            params: { pipelineId: app.id },
            query: { dryRun: 'true' },
          }),
        () => t.admin.call('deleteProject', { params: { project: 'web' } }),
      ]) {
        const refused = await statusOf(call());
        assert.equal(refused.code, 'SLUICE_PIPELINE_HAS_ACTIVE_BUILD');
        assert.match(
          refused.message,
          new RegExp(`build ${active.id} \\(#61 of web/app\\) is elected`),
        );
        assert.match(refused.hint ?? '', new RegExp(`sluice cancel ${active.id}`));
      }
      assert.equal((await leftOf(database, ids)).builds, 60, 'nothing was deleted');

      await t.admin.call('cancelBuild', { params: { buildId: active.id } });
      const deleted = await t.admin.call('deleteProject', { params: { project: 'web' } });
      assert.deepEqual(deleted, {
        dryRun: false,
        pipelines: 1,
        builds: 61,
        logChunks: 120,
        logBytes: 12_000,
      });
      assert.deepEqual(await leftOf(database, [...ids, active.id]), none());
      const gone = await statusOf(t.admin.call('getProject', { params: { project: 'web' } }));
      assert.equal(gone.code, 'SLUICE_PROJECT_NOT_FOUND');
    } finally {
      await t.close();
    }
  },
);

databases.test('DELETE /api/v1/builds/{id} deletes a finished build only', async (database) => {
  const t = await startTestServer(database);
  try {
    const [app] = await seedPipelines(t);
    assert.ok(app);
    const build = await t.admin.call('createBuild', { params: { pipelineId: app.id }, body: {} });
    const refused = await statusOf(t.admin.call('deleteBuild', { params: { buildId: build.id } }));
    assert.equal(refused.code, 'SLUICE_BUILD_NOT_FINISHED');
    assert.equal(
      refused.message,
      `Build ${build.id} is elected: only a finished build can be deleted`,
    );
    assert.match(refused.hint ?? '', new RegExp(`sluice cancel ${build.id}`));

    await t.admin.call('cancelBuild', { params: { buildId: build.id } });
    const deleted = await t.admin.call('deleteBuild', { params: { buildId: build.id } });
    assert.deepEqual(deleted, {
      dryRun: false,
      pipelines: 0,
      builds: 1,
      logChunks: 0,
      logBytes: 0,
    });
    assert.deepEqual(await leftOf(database, [build.id]), none());
    const again = await statusOf(t.admin.call('deleteBuild', { params: { buildId: build.id } }));
    assert.equal(again.code, 'SLUICE_BUILD_NOT_FOUND');
  } finally {
    await t.close();
  }
});

/** A pipeline of project `web` with `retention`, created through the API. */
async function pipelineWith(
  t: TestServer,
  name: string,
  retention?: { days?: number; builds?: number },
) {
  return t.admin.call('createPipeline', {
    params: { project: 'web' },
    body: { name, yaml: 'version: "1.0"\nsteps:\n  a:\n    image: alpine\n', retention },
  });
}

databases.test(
  'retention: by count and by age per pipeline, else the server default; {} keeps everything',
  async (database) => {
    const t = await startTestServer(database, { retentionDays: 30 });
    try {
      await t.admin.call('createProject', { body: { name: 'web' } });
      const byCount = await pipelineWith(t, 'by-count', { builds: 5 });
      assert.deepEqual(byCount.retention, { builds: 5 });
      const byAge = await pipelineWith(t, 'by-age', { days: 60 });
      const byDefault = await pipelineWith(t, 'by-default');
      assert.equal(byDefault.retention, null);
      const keepAll = await pipelineWith(t, 'keep-all', {});

      const counted = await history(database, byCount.id, { count: 20 });
      // An old build still running is kept whatever its age or place.
      await sql`update builds set status = 'running', finished_at = null
        where id = ${counted[1] ?? ''}`.execute(database.db);
      const old = await history(database, byAge.id, { count: 4, daysAgo: 90 });
      const young = await history(database, byAge.id, { count: 3, from: 5, daysAgo: 45 });
      const defaultOld = await history(database, byDefault.id, { count: 4, daysAgo: 40 });
      const defaultYoung = await history(database, byDefault.id, { count: 2, from: 5 });
      const kept = await history(database, keepAll.id, { count: 5, daysAgo: 400 });

      // A stopping server's pass ends before its next batch.
      const stopped = await t.server.services.retention.run({ signal: AbortSignal.abort() });
      assert.equal(stopped.builds, 0);
      const pass = await t.server.services.retention.run();
      assert.deepEqual(pass, { pipelines: 3, builds: 14 + 4 + 4, logChunks: 44, logBytes: 4_400 });
      const numbers = await database.db
        .selectFrom('builds')
        .select('number')
        .where('pipeline_id', '=', byCount.id)
        .orderBy('number')
        .execute();
      assert.deepEqual(
        numbers.map((b) => b.number),
        [2, 16, 17, 18, 19, 20],
      );
      assert.deepEqual(await leftOf(database, [...old, ...defaultOld]), none());
      assert.equal((await leftOf(database, [...young, ...defaultYoung, ...kept])).builds, 10);
      // A second pass finds nothing more.
      assert.equal((await t.server.services.retention.run()).builds, 0);

      // Set, changed back to the default (null), or to keep everything ({}), through the API.
      const patched = await t.admin.call('updatePipeline', {
        params: { pipelineId: keepAll.id },
        body: { retention: { days: 300, builds: null } },
      });
      assert.deepEqual(patched.retention, { days: 300 });
      assert.equal((await t.server.services.retention.run()).builds, 5);
      const reset = await t.admin.call('updatePipeline', {
        params: { pipelineId: keepAll.id },
        body: { retention: null },
      });
      assert.equal(reset.retention, null);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a duplicate project, pipeline or agent answers 409 in the API words, no constraint or table',
  async (database) => {
    const t = await startTestServer(database);
    try {
      await seedPipelines(t);
      const send = async (path: string, body: unknown) => {
        const response = await fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        });
        return { status: response.status, text: await response.text() };
      };
      const cases = [
        { path: '/api/v1/projects', body: { name: 'web' }, message: 'Project web already exists' },
        {
          path: '/api/v1/projects/web/pipelines',
          body: { name: 'app', yaml: 'version: "1.0"\nsteps:\n  a:\n    image: alpine\n' },
          message: 'Pipeline web/app already exists',
        },
        {
          path: '/api/v1/agents',
          body: { name: 'twice', runtimes: ['local'] },
          message: 'An agent with the same name already exists',
        },
      ];
      await send('/api/v1/agents', { name: 'twice', runtimes: ['local'] });
      for (const { path, body, message } of cases) {
        const answer = await send(path, body);
        assert.equal(answer.status, 409, answer.text);
        const error = (JSON.parse(answer.text) as { error: { message: string; details?: unknown } })
          .error;
        assert.equal(error.message, message);
        assert.equal(error.details, undefined);
        assert.doesNotMatch(
          answer.text,
          /_key|_fkey|_pkey|constraint|"projects"|"pipelines"|"agents"|table|Key \(/,
        );
      }
    } finally {
      await t.close();
    }
  },
);
