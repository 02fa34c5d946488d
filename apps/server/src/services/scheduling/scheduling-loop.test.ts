import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnavailableError } from '@sluice/errors';
import { silentLogger } from '@sluice/log';
import { startSchedulingLoop } from './scheduling-loop.js';

test('a pass runs at start, is retried while the database is unreachable, and runs once it is back', async () => {
  const calls: number[] = [];
  let failures = 2;
  let resolveBack: () => void = () => undefined;
  const back = new Promise<void>((resolve) => (resolveBack = resolve));
  const scheduler = {
    schedulePending() {
      calls.push(Date.now());
      if (failures > 0) {
        failures -= 1;
        return Promise.reject(
          new UnavailableError('SLUICE_DB_UNAVAILABLE', 'Database is unreachable'),
        );
      }
      resolveBack();
      return Promise.resolve({ accounts: 1 });
    },
  };
  // The loop's timers are unref'd (they never keep a server alive); this one keeps the test alive.
  const keepAlive = setInterval(() => undefined, 1000);
  const loop = startSchedulingLoop(scheduler, {
    intervalMs: 60_000,
    retryMs: 10,
    log: silentLogger,
  });
  try {
    await back;
    assert.equal(calls.length, 3, 'the start pass, then one retry per failure');
  } finally {
    await loop.stop();
    clearInterval(keepAlive);
  }
});
