import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { silentLogger } from '@sluice/log';
import { SchedulingWakeups } from './scheduling-wakeups.js';
import { Signals } from './pg-notify.js';

const databases = useTestDatabases();

databases.test(
  'a committed wake-up runs one pass per account, and settled waits for that pass',
  async (database) => {
    const signals = await Signals.create(database);
    const wakeups = new SchedulingWakeups(signals, silentLogger);
    const passes: string[] = [];
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    wakeups.drive(async (accountId) => {
      passes.push(accountId);
      await gate;
    });
    try {
      const keys = await database.db.transaction().execute(async (trx) => {
        const first = await wakeups.announce(trx, 'acc-1');
        // Several writes of one account in one transaction announce once.
        assert.equal(await wakeups.announce(trx, 'acc-1'), first);
        await wakeups.announce(trx, 'acc-2');
        return wakeups.announced(trx);
      });
      assert.equal(keys.length, 2);
      let settled = false;
      const waiting = wakeups.settled(keys).then(() => (settled = true));
      for (let i = 0; i < 200 && passes.length === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(passes.sort(), ['acc-1', 'acc-2'], 'one pass per account, after commit');
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(settled, false, 'settled waits for the pass it started');
      open();
      await waiting;
      assert.equal(passes.length, 2, 'settled ran no pass of its own');
    } finally {
      await signals.close();
    }
  },
);

databases.test('a rolled-back write wakes nothing', async (database) => {
  const signals = await Signals.create(database);
  const wakeups = new SchedulingWakeups(signals, silentLogger);
  const passes: string[] = [];
  wakeups.drive((accountId) => {
    passes.push(accountId);
    return Promise.resolve();
  });
  try {
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await wakeups.announce(trx, 'acc-1');
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(passes, []);
  } finally {
    await signals.close();
  }
});
