import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import type { BuildCache } from '@sluice/protocol';
import { foreignBuild, poll, startKubernetesServer } from './kubernetes-tasks.test-support.js';
import {
  acknowledge,
  ONE_KIND,
  seedPipeline,
  startEngine,
  startTestServer,
} from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

const HIT: BuildCache = {
  outcome: 'hit',
  reason: 'reused: the same sluice.io/app, sluice.io/account-id',
  volume: 'sluice-vol-0f1e',
  claim: 'pvc-dind-x',
  volumeCreatedAt: '2026-11-20T08:00:00.000Z',
  previousUseAt: '2026-11-26T08:00:00.000Z',
  mountCount: 3,
  usedBytes: 734003200,
  capacity: '10Gi',
  storageClass: 'sluice-volumes-sluice',
};

databases.test(
  "the agent's cache record is kept on the build, replaced by a later one, and refused for a build of another account's runtime",
  async (database) => {
    const { t, agent, pipelineId } = await startKubernetesServer(database);
    try {
      const build = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      assert.equal(build.cache, null, 'nothing is recorded before the agent reports');
      for (const task of await poll(agent)) await acknowledge(agent, task);

      await agent.call('agentBuildCache', { params: { buildId: build.id }, body: HIT });
      const got = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.deepEqual(got.cache, HIT);
      const listed = await t.admin.call('listBuilds', { query: {} });
      assert.deepEqual(listed.items.find((b) => b.id === build.id)?.cache, HIT);

      const retried = { ...HIT, outcome: 'miss' as const, reason: 'new: no released volume' };
      await agent.call('agentBuildCache', { params: { buildId: build.id }, body: retried });
      const again = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.equal(again.cache?.outcome, 'miss');

      const other = await foreignBuild(database);
      await assert.rejects(
        agent.call('agentBuildCache', { params: { buildId: other }, body: HIT }),
        /not a build of this agent's runtimes/,
      );
      await assert.rejects(
        agent.call('agentBuildCache', {
          params: { buildId: build.id },
          body: { ...HIT, outcome: 'warm' } as unknown as BuildCache,
        }),
        /outcome/,
      );
      // Hostile reports: a NUL byte and a megabyte reason are refused, the record kept.
      await assert.rejects(
        agent.call('agentBuildCache', {
          params: { buildId: build.id },
          body: { ...HIT, reason: 'reused\u0000' },
        }),
        /NUL/,
      );
      await assert.rejects(
        agent.call('agentBuildCache', {
          params: { buildId: build.id },
          body: { ...HIT, reason: 'x'.repeat(2_000) },
        }),
        /reason/,
      );
      const kept = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.equal(kept.cache?.reason, retried.reason);
      await assert.rejects(
        t.admin.call('agentBuildCache', { params: { buildId: build.id }, body: HIT }),
        /agent/i,
        'a user token may not write cache records',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  "a local build's engine records whether its Docker volume was warm; a record already there stays",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const pipeline = await seedPipeline(t);
      const { engine, build } = await startEngine(t, pipeline.id);
      const buildId = build.id;
      const ready = (reused: boolean) => ({
        type: 'volume-ready' as const,
        volume: 'sluice-volume-p1',
        reused,
        createdAt: '2026-11-20T08:00:00.000Z',
        at: '2026-11-30T08:00:00.000Z',
      });
      await engine.call('engineEvents', { body: { events: [ready(true)] } });
      const got = await t.admin.call('getBuild', { params: { buildId } });
      assert.deepEqual(
        [got.cache?.outcome, got.cache?.volume, got.cache?.claim, got.cache?.volumeCreatedAt],
        ['hit', 'sluice-volume-p1', '', '2026-11-20T08:00:00.000Z'],
      );
      assert.match(got.cache?.reason ?? '', /left by an earlier build/);
      // An engine started again (or an agent's record first) does not replace what is there.
      await engine.call('engineEvents', { body: { events: [ready(false)] } });
      // An over-long volume name is refused (an engine's NUL bytes are made storable instead:
      // request-text.ts), and the record is kept.
      await assert.rejects(
        engine.call('engineEvents', {
          body: { events: [{ ...ready(false), volume: 'v'.repeat(254) }] },
        }),
        /volume/,
      );
      const kept = await t.admin.call('getBuild', { params: { buildId } });
      assert.equal(kept.cache?.outcome, 'hit');
    } finally {
      await t.close();
    }
  },
);
