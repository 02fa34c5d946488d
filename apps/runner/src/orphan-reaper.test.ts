/**
 * The orphan reaper over a real local backend whose state directory is removed under the agent
 * (`sluice up` with its data directory deleted): the failure is said once, naming the
 * directory, not at every pass; the pass that works again says so; and closing the backend
 * still lets go of it. Each pass is counted through the agent's real metrics.
 * @module
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { memoryLogger } from '@sluice/log';
import { createClient } from '@sluice/protocol';
import { makeTempDir } from '@sluice/testkit';
import { createAgentMetrics } from './agent-metrics.js';
import type { AgentMetrics } from './agent-metrics.js';
import { createLocalBackend } from './backends/local/local-backend.js';
import { runReaper } from './orphan-reaper.js';

const temp = await makeTempDir('sluice-orphan-reaper-');
after(() => temp.cleanup());

test('a state directory removed under the agent is said once, and so is its return', async () => {
  const stateDir = join(temp.path, 'agent');
  mkdirSync(stateDir);
  const { logger, lines } = memoryLogger('info');
  const backend = createLocalBackend(
    {
      kind: 'local',
      name: 'local',
      engineCommand: [process.execPath, '-e', ''],
      stateDir,
      stopGraceSeconds: 1,
    },
    { logger, stopEnginesOnClose: true, env: process.env },
  );
  const options = {
    // Nothing is listed, so the control plane is never asked.
    client: createClient({ baseUrl: 'http://127.0.0.1:1', token: 'unused' }),
    backends: [backend],
    logger,
    busyBuilds: () => new Set<string>(),
  };
  const said = (message: string) =>
    lines
      .map((line) => JSON.parse(line) as { msg: string; reason?: string })
      .filter((entry) => entry.msg.startsWith(message));

  // Three passes without the directory, then three with it again.
  rmSync(stateDir, { recursive: true });
  const stop = new AbortController();
  const real = createAgentMetrics({ tasksHeld: () => 0 });
  let passes = 0;
  const metrics: AgentMetrics = {
    ...real,
    reconcileDone: (loop, runtime, seconds) => {
      real.reconcileDone(loop, runtime, seconds);
      passes += 1;
      if (passes === 3) mkdirSync(stateDir);
      if (passes === 6) stop.abort();
    },
  };
  await runReaper({ ...options, metrics, intervalMs: 1, signal: stop.signal });
  const failed = said('reaper pass failed');
  assert.equal(failed.length, 1, lines.join(''));
  assert.match(failed[0]?.reason ?? '', new RegExp(`state directory ${stateDir} is gone`));
  assert.equal(said('reaper pass works again').length, 1, lines.join(''));

  rmSync(stateDir, { recursive: true });
  await assert.rejects(backend.close(), /state directory .* is gone/);
});
