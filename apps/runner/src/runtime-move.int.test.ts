/**
 * A runtime taken from a running agent (`PATCH /api/v1/agents/{id}`) while one of its builds
 * runs: the agent's reaper, asking every few hundred milliseconds, is told the build is
 * `draining`, not `unknown`, and leaves its engine alone; the build runs to its end and
 * succeeds. A real agent (`startAgent`) with the local backend, against the built `sluice
 * server` and real `sluice engine` processes on the real Docker engine.
 * @module
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { silentLogger } from '@sluice/log';
import { createClient, FINISHED_STATUSES } from '@sluice/protocol';
import { parseMetrics, sample, waitFor } from '@sluice/testkit';
import { startAgent } from './agent.js';
import type { RunningAgent } from './agent.js';
import { createLocalBackend } from './backends/local/local-backend.js';
import { RUNNER_DEFAULTS } from './runner-config.js';
import type { LocalTarget } from './runner-config.js';
import {
  engineLog,
  useLocalRuntime,
  waitForBuild,
  waitForStepRunning,
} from './backends/local/local-backend.test-support.js';

/** One step that runs until the test puts `go` on the build's volume. */
const HELD_PIPELINE = `version: "1.0"
steps:
  held:
    image: sluice/busybox:1
    commands:
      - until [ -f /codefresh/volume/go ]; do sleep 0.2; done
      - echo released
`;

const runtime = useLocalRuntime({ held: HELD_PIPELINE });

/** Passes the agent's reaper has made so far. */
async function reaperPasses(agent: RunningAgent): Promise<number> {
  const metrics = parseMetrics(await agent.metrics.render());
  return sample(metrics, 'sluice_agent_reconcile_duration_seconds', { loop: 'reaper' }) ?? 0;
}

test('a runtime taken from an agent mid-build: the build runs on to success, not reaped', async () => {
  const { plane, temp } = runtime;
  const spec = { version: 1, metadata: { name: 'other' }, extends: ['system/default/local'] };
  await plane.admin.call('createRuntimeEnvironment', { body: { name: 'other', spec } });
  const created = await plane.admin.call('createAgent', {
    body: { name: 'mover', runtimes: ['local', 'other'] },
  });
  const target: LocalTarget = {
    ...runtime.target,
    stateDir: join(temp.path, 'mover-state'),
  };
  const agent = await startAgent(
    {
      ...RUNNER_DEFAULTS,
      serverUrl: plane.url,
      token: created.token,
      pollWaitSeconds: 2,
      heartbeatMs: 1_000,
      reapIntervalMs: 300,
      drainTimeoutMs: 5_000,
      runtimes: [target],
    },
    {
      createBackend: (t) =>
        Promise.resolve(
          createLocalBackend(t as LocalTarget, {
            logger: silentLogger,
            stopEnginesOnClose: true,
            env: process.env,
          }),
        ),
    },
  );
  try {
    await agent.ready;
    const pipelineId = plane.pipelines.held ?? '';
    const build = await plane.admin.call('createBuild', { params: { pipelineId }, body: {} });
    await waitForStepRunning(plane, build.id);

    await plane.admin.call('updateAgent', {
      params: { agentId: created.agent.id },
      body: { runtimes: ['other'] },
    });
    const before = await reaperPasses(agent);
    await waitFor(
      () => reaperPasses(agent),
      (n) => n >= before + 3,
      {
        what: 'three passes of the reaper after the runtime was taken',
      },
    );
    const during = await plane.admin.call('getBuild', { params: { buildId: build.id } });
    assert.ok(
      !FINISHED_STATUSES.includes(during.status),
      `the build ended: ${JSON.stringify(during)}\n${engineLog(target, build.id)}`,
    );
    const mover = createClient({ baseUrl: plane.url, token: created.token });
    const { builds } = await mover.call('agentBuildStates', { body: { buildIds: [build.id] } });
    assert.deepEqual(builds, [
      { buildId: build.id, status: during.status, finished: false, draining: true },
    ]);

    execFileSync('docker', [
      'run',
      '--rm',
      '-v',
      `sluice-volume-lb${process.pid}-held:/v`,
      'sluice/busybox:1',
      'touch',
      '/v/go',
    ]);
    const ended = await waitForBuild(plane, build.id);
    assert.equal(
      ended.status,
      'success',
      `${JSON.stringify(ended)}\n${engineLog(target, build.id)}`,
    );
    const log = await (await plane.admin.raw('buildLog', { params: { buildId: build.id } })).text();
    assert.match(log, /\[held\] released/);
  } finally {
    await agent.stop();
  }
});
