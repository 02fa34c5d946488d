import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { seedBuild } from './fixtures.test-support.js';
import { jsonb } from './jsonb.js';
import type { Schema } from './schema.js';
import { useTestDatabases } from './testing/test-databases.test-support.js';
import { withTransaction } from './transaction.js';

const databases = useTestDatabases();

/** The claim the task queue uses: the oldest free task, skipping rows other claimers hold. */
async function claimOne(db: Kysely<Schema>, claimer: string): Promise<string | undefined> {
  return withTransaction(db, async (trx) => {
    const row = await trx
      .updateTable('tasks')
      .set({
        status: 'leased',
        leased_by: claimer,
        lease_expires_at: sql<Date>`now() + interval '30 seconds'`,
        attempts: sql<number>`attempts + 1`,
        status_revision: sql<number>`status_revision + 1`,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', (eb) =>
        eb
          .selectFrom('tasks')
          .select('id')
          .where('runtime', '=', 'rt')
          .where('status', '=', 'queued')
          .where('available_at', '<=', sql<Date>`now()`)
          .orderBy('position')
          .orderBy('id')
          .limit(1)
          .forUpdate()
          .skipLocked(),
      )
      .returning('id')
      .executeTakeFirst();
    // Hold the row a moment so the other claimers really run into the lock.
    await new Promise((resolve) => setTimeout(resolve, 2));
    return row?.id;
  });
}

databases.test(
  '4 concurrent claimers over 40 tasks: each task claimed exactly once',
  async ({ db }) => {
    const { accountId, buildId } = await seedBuild(db);
    await db
      .insertInto('tasks')
      .values(
        Array.from({ length: 40 }, (_, i) => ({
          id: `task-${String(i).padStart(2, '0')}`,
          account_id: accountId,
          build_id: buildId,
          runtime: 'rt',
          type: 'create-pod',
          spec: jsonb({ i }),
          position: i,
          status: 'queued' as const,
        })),
      )
      .execute();
    const claimed = new Map<string, string[]>();
    await Promise.all(
      ['c1', 'c2', 'c3', 'c4'].map(async (claimer) => {
        claimed.set(claimer, []);
        for (
          let id = await claimOne(db, claimer);
          id !== undefined;
          id = await claimOne(db, claimer)
        ) {
          claimed.get(claimer)?.push(id);
        }
      }),
    );
    const all = [...claimed.values()].flat();
    assert.equal(all.length, 40);
    assert.equal(new Set(all).size, 40, 'a task was claimed twice');
    const rows = await db
      .selectFrom('tasks')
      .select(['status', 'attempts', 'status_revision', 'leased_by'])
      .execute();
    assert.ok(
      rows.every((r) => r.status === 'leased' && r.attempts === 1 && r.status_revision === 1),
    );
    for (const [claimer, ids] of claimed) {
      assert.equal(rows.filter((r) => r.leased_by === claimer).length, ids.length);
    }
  },
);
