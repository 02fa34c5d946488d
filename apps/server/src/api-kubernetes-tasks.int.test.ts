import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import { describeCertificate } from '@sluice/pki';
import type { Task } from '@sluice/protocol';
import {
  BUILD_LABELS,
  BUILD_SECRET_KEYS,
  buildObjectName,
  dindHostName,
  renderDindService,
} from '@sluice/runtime-spec';
import { DIND_SERVER_NAME } from './services/identity/certificate-service.js';
import {
  engineOf,
  poll,
  secretData,
  startKubernetesServer,
  summary,
} from './kubernetes-tasks.test-support.js';
import { acknowledge, reportFailure, ONE_KIND } from './server-harness.test-support.js';

const databases = useTestDatabases(ONE_KIND);

/** What the six start tasks of build `id` are called, in order. */
function startSummary(id: string): [string, string][] {
  return [
    ['CreateService', 'sluice-dind'],
    ['CreatePvc', buildObjectName('pvc-dind', id)],
    ['CreateSecret', buildObjectName('sluice-engine', id)],
    ['CreateConfigMap', buildObjectName('dind-config', id)],
    ['CreatePod', buildObjectName('dind', id)],
    ['CreatePod', buildObjectName('engine', id)],
  ];
}

/**
 * What its five stop tasks are called, in order: the claim first (marked as going, its warm
 * volume can wait for the next build), then the start tasks reversed, without the Service.
 */
function stopSummary(id: string): [string, string][] {
  return [
    ['DeletePvc', buildObjectName('pvc-dind', id)],
    ['DeletePod', buildObjectName('engine', id)],
    ['DeletePod', buildObjectName('dind', id)],
    ['DeleteConfigMap', buildObjectName('dind-config', id)],
    ['DeleteSecret', buildObjectName('sluice-engine', id)],
  ];
}

/** The value of the env var `name` of the first container of the pod a task creates. */
function envValue(task: Task, name: string): string | undefined {
  const pod = task.spec as { spec: { containers: { env: { name: string; value?: string }[] }[] } };
  return pod.spec.containers[0]?.env.find((e) => e.name === name)?.value;
}

databases.test(
  'a Kubernetes build becomes six start tasks; its Secret is sealed at rest and handed out again unchanged',
  async (database) => {
    const { t, agent, pipelineId, advance } = await startKubernetesServer(database);
    try {
      const build = await t.admin.call('createBuild', {
        params: { pipelineId },
        body: { branch: 'main' },
      });
      assert.equal(build.status, 'elected');
      const tasks = await poll(agent);
      assert.deepEqual(summary(tasks), startSummary(build.id));
      assert.deepEqual(
        tasks.map((task) => [task.position, task.buildId, task.runtime]),
        [0, 1, 2, 3, 4, 5].map((position) => [position, build.id, 'k8s']),
      );
      assert.deepEqual(tasks[0]!.spec, renderDindService('builds'));
      for (const task of tasks.slice(1)) {
        const metadata = task.spec.metadata as {
          namespace: string;
          labels: Record<string, string>;
        };
        assert.equal(metadata.namespace, 'builds');
        assert.equal(metadata.labels[BUILD_LABELS.buildId], build.id);
      }
      assert.equal(envValue(tasks[5]!, 'SLUICE_SERVER_URL'), 'http://control-plane.test');
      assert.equal(envValue(tasks[5]!, 'SLUICE_BUILD_ID'), build.id);

      const secret = secretData(tasks);
      const engine = engineOf(t, tasks);
      assert.equal(
        (await engine.call('engineBuild')).buildId,
        build.id,
        'the token is the build engine token',
      );
      const server = describeCertificate(secret[BUILD_SECRET_KEYS.serverCert] ?? '');
      assert.deepEqual(server.dnsNames, [
        dindHostName(buildObjectName('dind', build.id), 'builds'),
        DIND_SERVER_NAME,
      ]);
      assert.deepEqual(
        describeCertificate(secret[BUILD_SECRET_KEYS.clientCert] ?? '').extendedKeyUsages,
        ['clientAuth'],
      );

      const rows = JSON.stringify(
        await database.db
          .selectFrom('tasks')
          .selectAll()
          .where('build_id', '=', build.id)
          .execute(),
      );
      const token = secret[BUILD_SECRET_KEYS.engineToken] ?? '';
      assert.ok(!rows.includes(token), 'no engine token at rest');
      assert.doesNotMatch(rows, /BEGIN|PRIVATE KEY/, 'no PEM at rest');

      assert.deepEqual(await poll(agent), [], 'leased tasks wait for their lease');
      advance(60_001);
      const again = await poll(agent);
      assert.deepEqual(summary(again), startSummary(build.id));
      assert.deepEqual(
        again.map((task) => task.attempt),
        [2, 2, 2, 2, 2, 2],
      );
      assert.deepEqual(secretData(again), secret, 'the same token and certificates');
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a finished build queues its five stop tasks, the claim first, drops start tasks still queued, and accepts late reports',
  async (database) => {
    const { t, agent, pipelineId, advance } = await startKubernetesServer(database);
    try {
      const build = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      const first = await poll(agent, 4);
      assert.deepEqual(summary(first), startSummary(build.id).slice(0, 4));
      await acknowledge(agent, first[0]!);
      const engine = engineOf(t, first);
      const at = () => new Date().toISOString();
      await engine.call('engineEvents', {
        body: {
          events: [
            { type: 'build-started', at: at() },
            { type: 'build-finished', status: 'success', at: at() },
          ],
        },
      });

      advance(60_001); // past the lease of the three start tasks never acknowledged
      const stop = await poll(agent);
      assert.deepEqual(summary(stop), stopSummary(build.id), 'no start task is handed out again');
      assert.deepEqual(
        stop.map((task) => task.position),
        [6, 7, 8, 9, 10],
      );
      assert.deepEqual(stop[0]!.spec, {
        name: buildObjectName('pvc-dind', build.id),
        namespace: 'builds',
      });
      for (const task of stop) await acknowledge(agent, task);
      const left = await database.db
        .selectFrom('tasks')
        .select(['type', 'status'])
        .where('build_id', '=', build.id)
        .where('type', 'like', 'Create%')
        .orderBy('position')
        .execute();
      assert.deepEqual(
        left.map((row) => [row.type, row.status]),
        [
          ['CreateService', 'done'],
          ['CreatePvc', 'leased'],
          ['CreateSecret', 'leased'],
          ['CreateConfigMap', 'leased'],
        ],
      );

      await acknowledge(agent, first[1]!);
      await reportFailure(agent, first[2]!, { reason: 'late', isRetriable: true });
      advance(120_000);
      assert.deepEqual(await poll(agent), [], 'a late retriable failure is not retried');
      const final = await t.admin.call('getBuild', { params: { buildId: build.id } });
      assert.equal(final.status, 'success');
      assert.equal(final.reason, null);
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'cancelling an elected build ends it terminated, with stop tasks once its tasks reached an agent',
  async (database) => {
    const { t, agent, pipelineId } = await startKubernetesServer(database);
    try {
      const dispatched = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      assert.equal((await poll(agent)).length, 6);
      const waiting = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      assert.equal(waiting.status, 'elected');

      const cancelled = await t.admin.call('cancelBuild', { params: { buildId: dispatched.id } });
      assert.equal(cancelled.status, 'terminated');
      assert.equal(cancelled.reason, 'Cancelled before the engine started');
      const never = await t.admin.call('cancelBuild', { params: { buildId: waiting.id } });
      assert.equal(never.status, 'terminated');
      assert.equal(never.reason, 'Cancelled before it started');

      const stop = await poll(agent);
      assert.deepEqual(
        summary(stop),
        stopSummary(dispatched.id),
        'none for the build never handed out',
      );
    } finally {
      await t.close();
    }
  },
);

databases.test(
  'a build its runtime cannot render ends error with the reason, and the next build still runs',
  async (database) => {
    const { t, agent, pipelineId } = await startKubernetesServer(database, {
      publicUrl: undefined,
    });
    try {
      const noUrl = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      assert.equal(noUrl.status, 'error');
      assert.equal(
        noUrl.reason,
        'Runtime environment "k8s" has no controlPlaneUrl and the server has no public URL, so the engine pod could not reach it: set SLUICE_PUBLIC_URL or the runtime\'s controlPlaneUrl',
      );

      await t.admin.call('patchRuntimeEnvironment', {
        params: { name: 'k8s' },
        body: {
          patch: {
            controlPlaneUrl: 'http://sluice.example:8080',
            runtimeScheduler: { cluster: { namespace: null } },
          },
        },
      });
      const noNamespace = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      assert.equal(noNamespace.status, 'error');
      assert.match(noNamespace.reason ?? '', /runtimeScheduler\.cluster\.namespace/);

      await t.admin.call('patchRuntimeEnvironment', {
        params: { name: 'k8s' },
        body: { patch: { runtimeScheduler: { cluster: { namespace: 'ci' } } } },
      });
      const runs = await t.admin.call('createBuild', { params: { pipelineId }, body: {} });
      assert.equal(runs.status, 'elected');
      const tasks = await poll(agent);
      assert.deepEqual(
        tasks.map((task) => task.buildId),
        Array(6).fill(runs.id) as string[],
      );
      assert.equal(envValue(tasks[5]!, 'SLUICE_SERVER_URL'), 'http://sluice.example:8080');
    } finally {
      await t.close();
    }
  },
);
