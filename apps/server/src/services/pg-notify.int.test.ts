import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { CHANNELS, Signals } from './pg-notify.js';

const databases = useTestDatabases();

/** 'woken' when `promise` settles before `ms`, else 'timed out'. */
function settlesWithin(promise: Promise<void>, ms: number): Promise<'woken' | 'timed out'> {
  return Promise.race([
    promise.then(() => 'woken' as const),
    new Promise<'timed out'>((r) => setTimeout(() => r('timed out'), ms)),
  ]);
}

databases.test(
  'a wake-up between a read and the wait is not lost: the stale generation returns at once',
  async (database) => {
    const signals = await Signals.create(database);
    try {
      const before = signals.generation(CHANNELS.tasks, 'rt-1');
      // The "read" happens here; the notification lands before the reader starts waiting.
      await database.db
        .transaction()
        .execute((trx) => signals.publish(trx, CHANNELS.tasks, 'rt-1'));
      for (let i = 0; i < 200 && signals.generation(CHANNELS.tasks, 'rt-1') === before; i++)
        await new Promise((r) => setTimeout(r, 10));
      assert.notEqual(
        signals.generation(CHANNELS.tasks, 'rt-1'),
        before,
        'the notification never arrived',
      );
      assert.equal(
        await settlesWithin(signals.wait(CHANNELS.tasks, 'rt-1', 30_000, { since: before }), 5_000),
        'woken',
      );
      // With the current generation it waits for the next wake-up, and other keys do not wake it.
      const now = signals.generation(CHANNELS.tasks, 'rt-1');
      const waiting = signals.wait(CHANNELS.tasks, 'rt-1', 30_000, { since: now });
      await database.db
        .transaction()
        .execute((trx) => signals.publish(trx, CHANNELS.tasks, 'rt-2'));
      assert.equal(await settlesWithin(waiting, 300), 'timed out');
      await database.db
        .transaction()
        .execute((trx) => signals.publish(trx, CHANNELS.tasks, 'rt-1'));
      assert.equal(await settlesWithin(waiting, 5_000), 'woken');
    } finally {
      await signals.close();
    }
  },
);

databases.test('a rolled-back change wakes nobody', async (database) => {
  const signals = await Signals.create(database);
  try {
    const waiting = signals.wait(CHANNELS.logs, 'b1', 30_000, {
      since: signals.generation(CHANNELS.logs, 'b1'),
    });
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await signals.publish(trx, CHANNELS.logs, 'b1');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(await settlesWithin(waiting, 500), 'timed out');
  } finally {
    await signals.close();
  }
});
