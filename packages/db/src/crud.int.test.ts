import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ConflictError, InternalError } from '@sluice/errors';
import { seedBuild } from './fixtures.test-support.js';
import { jsonb } from './jsonb.js';
import type { StoredLogLine } from './schema.js';
import { useTestDatabases } from './testing/test-databases.test-support.js';

const databases = useTestDatabases();

test('the harness covers both databases', () => {
  assert.deepEqual(databases.kinds, ['pglite', 'postgres']);
});

databases.test('defaults fill in and timestamps read back as Dates', async ({ db }) => {
  const before = Date.now();
  const { buildId, pipelineId } = await seedBuild(db);
  const build = await db
    .selectFrom('builds')
    .selectAll()
    .where('id', '=', buildId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(
    {
      facts: build.facts,
      variables: build.variables,
      timing: build.timing,
      finished: build.finished_at,
    },
    { facts: {}, variables: {}, timing: {}, finished: null },
  );
  assert.ok(build.created_at instanceof Date);
  assert.ok(
    build.created_at.getTime() >= before - 5_000 &&
      build.created_at.getTime() <= Date.now() + 5_000,
  );
  await db
    .insertInto('triggers')
    .values({ id: 't1', account_id: build.account_id, pipeline_id: pipelineId, kind: 'git' })
    .execute();
  const trigger = await db
    .selectFrom('triggers')
    .select(['events', 'enabled', 'variables'])
    .executeTakeFirstOrThrow();
  assert.deepEqual(trigger, { events: [], enabled: true, variables: {} });
});

databases.test('jsonb and timestamptz round-trip exactly', async ({ db }) => {
  const { buildId, accountId } = await seedBuild(db);
  const at = new Date('2026-01-02T03:04:05.678Z');
  const facts = {
    repo: 'acme/web',
    tags: ['a', 'b'],
    nested: { n: 1.5, ok: true, none: null },
    text: 'ü → ✓ "q"',
  };
  await db
    .updateTable('builds')
    .set({
      facts: jsonb(facts),
      engine_heartbeat_at: at,
      finished_at: '2026-01-02T05:04:05.678+02:00',
    })
    .where('id', '=', buildId)
    .execute();
  const row = await db
    .selectFrom('builds')
    .select(['facts', 'engine_heartbeat_at', 'finished_at'])
    .executeTakeFirstOrThrow();
  assert.deepEqual(row.facts, facts);
  assert.equal(row.engine_heartbeat_at?.toISOString(), at.toISOString());
  assert.equal(row.finished_at?.toISOString(), at.toISOString());

  const lines: StoredLogLine[] = [
    { step: 'build', stream: 'stdout', line: 'hello', at: at.toISOString() },
    { step: 'build', stream: 'stderr', line: '', at: at.toISOString() },
  ];
  await db
    .insertInto('build_log_chunks')
    .values({ build_id: buildId, seq: 0, lines: jsonb(lines), byte_size: 5 })
    .execute();
  const chunk = await db.selectFrom('build_log_chunks').select('lines').executeTakeFirstOrThrow();
  assert.deepEqual(chunk.lines, lines);

  await db
    .insertInto('agents')
    .values({ id: 'ag1', account_id: accountId, name: 'k8s', runtimes: jsonb(['rt-a', 'rt-b']) })
    .execute();
  await db
    .insertInto('settings')
    .values({ key: 'scalar', value: jsonb(42) })
    .execute();
  const agent = await db.selectFrom('agents').select('runtimes').executeTakeFirstOrThrow();
  const setting = await db.selectFrom('settings').select('value').executeTakeFirstOrThrow();
  assert.deepEqual([agent.runtimes, setting.value], [['rt-a', 'rt-b'], 42]);
});

databases.test(
  'a unique violation is ConflictError SLUICE_DB_CONFLICT in words, the constraint in details',
  async ({ db }) => {
    const { accountId } = await seedBuild(db);
    await db.insertInto('users').values({ id: 'u1', account_id: accountId, name: 'ada' }).execute();
    await assert.rejects(
      db.insertInto('users').values({ id: 'u2', account_id: accountId, name: 'ada' }).execute(),
      (err: unknown) => {
        assert.ok(err instanceof ConflictError);
        assert.equal(err.code, 'SLUICE_DB_CONFLICT');
        assert.equal(err.details?.['constraint'], 'users_account_id_name_key');
        assert.equal(err.message, 'A user with the same name already exists');
        return true;
      },
    );
    const token = {
      account_id: accountId,
      kind: 'user' as const,
      subject_id: 'u1',
      name: 't',
      token_hash: 'ab'.repeat(32),
      token_prefix: 'slc_ab',
    };
    await db
      .insertInto('api_tokens')
      .values({ id: 'tk1', ...token })
      .execute();
    await assert.rejects(
      db
        .insertInto('api_tokens')
        .values({ id: 'tk2', ...token })
        .execute(),
      (err: unknown) =>
        err instanceof ConflictError && err.details?.['constraint'] === 'api_tokens_token_hash_key',
    );
    // The connection is still usable after the error (PGlite has only one).
    assert.equal((await db.selectFrom('users').select('id').execute()).length, 1);
  },
);

databases.test(
  'foreign keys: SLUICE_DB_REFERENCE, and deletes cascade where declared',
  async ({ db }) => {
    const { projectId, pipelineId, buildId } = await seedBuild(db);
    await assert.rejects(
      db.insertInto('users').values({ id: 'u1', account_id: 'missing', name: 'x' }).execute(),
      (err: unknown) => err instanceof ConflictError && err.code === 'SLUICE_DB_REFERENCE',
    );
    await db
      .insertInto('pipeline_variables')
      .values({ pipeline_id: pipelineId, name: 'A', value: '1', is_secret: false })
      .execute();
    await db
      .insertInto('build_steps')
      .values({ build_id: buildId, name: 'clone', position: 0, status: 'success' })
      .execute();
    // builds → pipelines does not cascade: history is not deleted by accident.
    await assert.rejects(
      db.deleteFrom('projects').where('id', '=', projectId).execute(),
      (err: unknown) => {
        assert.ok(err instanceof ConflictError);
        assert.equal(err.details?.['constraint'], 'builds_pipeline_id_fkey');
        assert.equal(err.message, 'The pipeline cannot be deleted while builds refer to it');
        return true;
      },
    );
    await db.deleteFrom('builds').execute();
    assert.equal((await db.selectFrom('build_steps').selectAll().execute()).length, 0);
    await db.deleteFrom('projects').where('id', '=', projectId).execute();
    assert.equal((await db.selectFrom('pipelines').selectAll().execute()).length, 0);
    assert.equal((await db.selectFrom('pipeline_variables').selectAll().execute()).length, 0);
  },
);

databases.test('check constraints reject unknown states as our bug', async ({ db }) => {
  const { buildId } = await seedBuild(db);
  await assert.rejects(
    sql`update builds set status = 'bogus' where id = ${buildId}`.execute(db),
    (err: unknown) => {
      assert.ok(err instanceof InternalError);
      assert.equal(err.code, 'SLUICE_DB_QUERY_FAILED');
      assert.equal(err.details?.['sqlState'], '23514');
      return true;
    },
  );
});

databases.test('build_control numbers control events in order', async ({ db }) => {
  const { buildId } = await seedBuild(db);
  for (const kind of ['approve', 'cancel'] as const) {
    await db.insertInto('build_control').values({ build_id: buildId, kind }).execute();
  }
  const rows = await db
    .selectFrom('build_control')
    .select(['seq', 'kind'])
    .orderBy('seq')
    .execute();
  assert.deepEqual(
    rows.map((r) => r.kind),
    ['approve', 'cancel'],
  );
  assert.ok(typeof rows[0]?.seq === 'number' && rows[0].seq < (rows[1]?.seq ?? 0));
  const { count } = await db
    .selectFrom('build_control')
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  assert.equal(Number(count), 2);
});
