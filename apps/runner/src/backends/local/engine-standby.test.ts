/**
 * Standby engines that end before their build, with real child processes standing in for
 * `sluice engine`: each end is logged with its exit code and what the standby printed, the
 * first is replaced at once, the next ones after a back-off that doubles, and their output
 * files go with them.
 * @module
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { memoryLogger } from '@sluice/log';
import { makeTempDir, waitFor } from '@sluice/testkit';
import { EngineStandby } from './engine-standby.js';

const temp = await makeTempDir('sluice-engine-standby-');
after(() => temp.cleanup());

/** An engine command that cannot start: it says why and exits 3. */
const FAILING = [
  process.execPath,
  '-e',
  "console.error('cannot load the engine: boom'); process.exit(3)",
];

test('a standby that keeps ending at start is replaced after a doubling back-off, each end logged with why', async () => {
  const { logger, lines } = memoryLogger('debug');
  const pool = EngineStandby.create({
    stateDir: temp.path,
    command: FAILING,
    count: 1,
    env: process.env,
    logger,
  });
  try {
    pool.refill();
    const ends = await waitFor(
      () =>
        lines
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((entry) => entry.msg === 'a standby engine ended before its build'),
      (found) => found.length >= 3,
      { what: 'three standby engines to end', timeoutMs: 30_000 },
    );
    assert.deepEqual(
      ends.slice(0, 3).map((end) => end.retryInMs),
      [0, 1000, 2000],
      'the first end is replaced at once, the next ones after 1 s, then 2 s',
    );
    for (const end of ends) {
      assert.equal(end.exitCode, 3);
      assert.equal(end.lastOutput, 'cannot load the engine: boom');
    }
  } finally {
    pool.close();
  }
  assert.deepEqual(
    readdirSync(temp.path).filter((name) => name.endsWith('.out')),
    [],
    'an ended standby left its output file',
  );
});
