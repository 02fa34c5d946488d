import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import type { SluiceClient, Task } from '@sluice/protocol';
import { buildObjectName } from '@sluice/runtime-spec';
import {
  engineOf,
  foreignBuild,
  poll,
  startKubernetesServer,
  summary,
} from './kubernetes-tasks.test-support.js';
import { acknowledge, KUBERNETES_RUNTIME, ONE_KIND } from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

function report(agent: SluiceClient, buildId: string, pod: string, reason = 'ErrImagePull') {
  return agent.call('agentInfrastructureError', {
    params: { buildId },
    body: { pod, reason, message: 'container engine: manifest unknown' },
  });
}

/** Takes and acknowledges every task handed out now. */
async function takeAll(agent: SluiceClient): Promise<Task[]> {
  const tasks = await poll(agent);
  for (const task of tasks) await acknowledge(agent, task);
  return tasks;
}

function dindPodOf(task: Task): string | undefined {
  const pod = task.spec as { spec: { containers: { env?: { name: string; value?: string }[] }[] } };
  return pod.spec.containers[0]?.env?.find((e) => e.name === 'SLUICE_DIND_POD')?.value;
}

databases.test(
  'a pod failure before the engine started is retried once on new pods, then ends the build with the reason',
  async (database) => {
    const { t, agent, pipelineId } = await startKubernetesServer(database);
    try {
      const build = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      await takeAll(agent);
      const engine = buildObjectName('engine', build.id);
      const dind = buildObjectName('dind', build.id);

      assert.deepEqual(await report(agent, build.id, engine), { action: 'retried', attempt: 2 });
      const retry = await takeAll(agent);
      assert.deepEqual(summary(retry), [
        ['DeletePod', engine],
        ['DeletePod', dind],
        ['CreatePod', `${dind}-r1`],
        ['CreatePod', `${engine}-r1`],
      ]);
      assert.equal(dindPodOf(retry[3]!), `${dind}-r1`, 'the new engine dials the new dind pod');
      const retrying = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.equal(retrying.status, 'elected');
      assert.match(retrying.reason ?? '', /Retrying on new pods \(attempt 2\).*ErrImagePull/);

      // The monitor saw the old pod once more: that attempt is over.
      assert.deepEqual(await report(agent, build.id, engine), { action: 'ignored', attempt: 2 });

      assert.deepEqual(await report(agent, build.id, `${engine}-r1`), {
        action: 'failed',
        attempt: 2,
      });
      const failed = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.equal(failed.status, 'error');
      assert.equal(
        failed.reason,
        `Infrastructure error on pod ${engine}-r1: ErrImagePull: container engine: manifest unknown (after 2 attempt(s) on new pods)`,
      );
      const stop = summary(await poll(agent));
      for (const pod of [engine, dind, `${engine}-r1`, `${dind}-r1`])
        assert.ok(
          stop.some(([type, name]) => type === 'DeletePod' && name === pod),
          `${pod} is deleted: ${JSON.stringify(stop)}`,
        );
      assert.deepEqual(await report(agent, build.id, `${engine}-r1`), {
        action: 'ignored',
        attempt: 2,
      });
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a build whose engine started is not retried, and a runtime may allow no retry',
  async (database) => {
    const { t, agent, pipelineId } = await startKubernetesServer(
      database,
      {},
      {
        ...KUBERNETES_RUNTIME,
        runtimeScheduler: { ...KUBERNETES_RUNTIME.runtimeScheduler, infrastructureRetries: 0 },
      },
    );
    try {
      const running = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      const tasks = await takeAll(agent);
      await engineOf(t, tasks).call('engineEvents', {
        body: { events: [{ type: 'build-started', at: new Date().toISOString() }] },
      });
      const killed = buildObjectName('engine', running.id);
      assert.deepEqual(await report(agent, running.id, killed, 'OOMKilled'), {
        action: 'failed',
        attempt: 1,
      });
      const ended = await t.admin.call('getBuild', { params: { buildId: running.id } });
      assert.equal(ended.status, 'error');
      assert.match(ended.reason ?? '', /OOMKilled.*\(not retried: its steps had started\)$/);

      const next = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      await takeAll(agent);
      const unschedulable = buildObjectName('dind', next.id);
      assert.equal(
        (await report(agent, next.id, unschedulable, 'Unschedulable')).action,
        'failed',
        'infrastructureRetries: 0',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  "an agent cannot report on a build of another account's or another runtime",
  async (database) => {
    const { t, agent } = await startKubernetesServer(database);
    try {
      const other = await foreignBuild(database);
      await assert.rejects(report(agent, other, 'engine-x'), (err: Error) => {
        assert.match(err.message, /not a build of this agent's runtimes/);
        return true;
      });
    } finally {
      await t.close();
    }
  },
);
