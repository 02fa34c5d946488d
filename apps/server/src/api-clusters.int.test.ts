/**
 * Cluster integrations through the API: a kubeconfig's context is kept under the cluster's name,
 * its token encrypted at rest (not in the row, not in any answer or log), and given decrypted
 * to the engine of a build of the account whose pipeline names it (or says SLUICE_CLUSTERS=*);
 * a file steps could not use is refused saying what to change; a name is taken once; a cluster
 * limited to other projects is not given, only named;
 * a deleted cluster is gone. A cluster behind a runtime's firewall keeps no credential: a build
 * on that runtime gets a task for its agent to mint the service account's token, after the
 * build Secret it is bound to and before the engine pod that reads it (and a stop task that
 * deletes it); a build on another runtime is told it cannot reach the cluster.
 * @module
 */
import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import type { SluiceClient } from '@sluice/protocol';
import {
  acknowledge,
  agentClient,
  KUBERNETES_RUNTIME,
  LOCAL_RUNTIME,
  ONE_KIND,
  startTestServer,
} from './server-harness.test-support.js';
import type { TestServer } from './server-harness.test-support.js';
import { failure, setUp } from './trigger-deliveries.test-support.js';

const databases = useTestDatabases();

/** A step that deploys to cluster `payments`, another that reaches `prod` with `--context`. */
const NAMES_PROD_AND_PAYMENTS = `version: '1.0'
steps:
  check:
    image: alpine
    commands: ['kubectl --context prod get pods']
  deploy:
    type: deploy
    kind: kubernetes
    cluster: payments
    service: app
    candidate: {image: acme/app}
`;

/** What the engine of a new build of the pipeline (taken by `agent`) is given. */
async function engineBuildOf(
  t: TestServer,
  agent: SluiceClient,
  pipelineId: string,
  variables: Record<string, string> = {},
) {
  const build = await t.admin.call('createBuild', { params: { pipelineId }, body: { variables } });
  const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
  const task = tasks.find((x) => x.buildId === build.id);
  assert.ok(task !== undefined, 'the build was elected');
  await acknowledge(agent, task);
  return t.client(String(task.spec.engineToken)).call('engineBuild');
}
const TOKEN = 'cluster-token-0123456789abcdef';
const KUBECONFIG = `
apiVersion: v1
kind: Config
current-context: deployer
clusters: [{name: c, cluster: {server: 'https://10.1.2.3:6443', certificate-authority-data: Q0E=}}]
users: [{name: u, user: {token: ${TOKEN}}}]
contexts: [{name: deployer, context: {cluster: c, user: u, namespace: apps}}]
`;

databases.test(
  "a cluster from a kubeconfig: kept encrypted, never returned, given to the account's engines",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { pipeline } = await setUp(t);
      await t.admin.call('createRuntimeEnvironment', {
        body: { name: 'local', spec: LOCAL_RUNTIME },
      });
      await t.admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
      const created = await t.admin.call('createCluster', {
        body: { name: 'prod', kubeconfig: KUBECONFIG },
      });
      assert.deepEqual(
        [created.name, created.kind, created.server, created.namespace, created.hasCredentials],
        ['prod', 'kubeconfig', 'https://10.1.2.3:6443', 'apps', true],
      );
      const listed = await t.admin.call('listClusters');
      assert.deepEqual(
        listed.items.map((c) => c.name),
        ['prod'],
      );
      const row = await database.db.selectFrom('clusters').selectAll().executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(TOKEN), 'the token is encrypted at rest');

      const taken = await failure(
        t.admin.call('createCluster', { body: { name: 'prod', kubeconfig: KUBECONFIG } }),
      );
      assert.deepEqual([taken.code, taken.status], ['SLUICE_CLUSTER_EXISTS', 409]);
      const unusable = await failure(
        t.admin.call('createCluster', {
          body: {
            name: 'cloud',
            kubeconfig: KUBECONFIG.replace(`token: ${TOKEN}`, 'exec: {command: aws}'),
          },
        }),
      );
      assert.equal(unusable.code, 'SLUICE_CLUSTER_KUBECONFIG_INVALID');
      assert.match(unusable.message, /user "u" has exec/);

      const limited = await t.admin.call('createCluster', {
        body: { name: 'payments', kubeconfig: KUBECONFIG, projects: ['payments', 'billing'] },
      });
      assert.deepEqual(limited.projects, ['billing', 'payments']);
      await t.admin.call('createCluster', { body: { name: 'staging', kubeconfig: KUBECONFIG } });
      // The pipeline names prod and payments, not staging.
      await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: NAMES_PROD_AND_PAYMENTS },
      });
      // A build's engine gets the context of a cluster its pipeline names, with the token.
      const agent = await agentClient(t);
      const given = await engineBuildOf(t, agent, pipeline.id);
      assert.deepEqual(
        given.clusters.map((c) => [c.name, c.secrets]),
        [['prod', [TOKEN]]],
        'staging, which the pipeline does not name, is not given',
      );
      assert.deepEqual(
        given.deniedClusters,
        [{ name: 'payments', projects: ['billing', 'payments'] }],
        'a cluster for other projects is named, never given',
      );
      // SLUICE_CLUSTERS=* gives every cluster the project may use.
      const every = await engineBuildOf(t, agent, pipeline.id, { SLUICE_CLUSTERS: '*' });
      assert.deepEqual(
        every.clusters.map((c) => c.name),
        ['prod', 'staging'],
      );
      const kubeconfig = JSON.parse(given.clusters[0]?.kubeconfig ?? '{}') as {
        contexts: { name: string }[];
      };
      assert.deepEqual(
        kubeconfig.contexts.map((c) => c.name),
        ['prod'],
      );

      await t.admin.call('deleteCluster', { params: { name: 'prod' } });
      const gone = await failure(t.admin.call('getCluster', { params: { name: 'prod' } }));
      assert.deepEqual([gone.code, gone.status], ['SLUICE_CLUSTER_NOT_FOUND', 404]);
      assert.ok(!t.logs().includes(TOKEN), 'the token is never logged');
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);

databases.test(
  "a cluster behind a runtime's firewall: its build's agent mints the token, other runtimes cannot reach it",
  async (database) => {
    const t = await startTestServer(database);
    try {
      const { pipeline } = await setUp(t);
      for (const [name, spec] of [
        ['local', LOCAL_RUNTIME],
        ['k8s', KUBERNETES_RUNTIME],
      ] as const)
        await t.admin.call('createRuntimeEnvironment', { body: { name, spec } });
      await t.admin.call('setDefaultRuntimeEnvironment', { params: { name: 'k8s' } });
      const inside = {
        name: 'inside',
        runtime: 'k8s',
        serviceAccount: 'sluice-cluster-inside',
        namespaces: ['shop', 'shop-staging'],
        server: 'https://10.96.0.1:443',
      };
      for (const [body, code, pattern] of [
        [{ ...inside, kubeconfig: KUBECONFIG }, 'SLUICE_CLUSTER_INVALID', /exclude each other/],
        [{ ...inside, server: undefined }, 'SLUICE_CLUSTER_INVALID', /needs `server`/],
        [{ name: 'none' }, 'SLUICE_CLUSTER_INVALID', /either `kubeconfig`/],
        [{ ...inside, runtime: 'nowhere' }, 'SLUICE_RUNTIME_NOT_FOUND', /"nowhere"/],
        [{ ...inside, runtime: 'local' }, 'SLUICE_CLUSTER_INVALID', /not run builds in Kubernetes/],
      ] as const) {
        const refused = await failure(t.admin.call('createCluster', { body }));
        assert.equal(refused.code, code);
        assert.match(refused.message, pattern);
      }
      const created = await t.admin.call('createCluster', { body: inside });
      assert.deepEqual(
        [
          created.kind,
          created.runtime,
          created.namespace,
          created.namespaces,
          created.hasCredentials,
        ],
        ['behind-firewall', 'k8s', 'shop', ['shop', 'shop-staging'], false],
      );

      const agent = await agentClient(t, 'kube-agent', ['k8s']);
      const build = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
      const types = tasks.filter((x) => x.buildId === build.id).map((x) => x.type);
      assert.deepEqual(types, [
        'CreateService',
        'CreatePvc',
        'CreateSecret',
        'CreateClusterCredentials',
        'CreateConfigMap',
        'CreatePod',
        'CreatePod',
      ]);
      const mint = tasks.find((x) => x.type === 'CreateClusterCredentials');
      const secret = tasks.find((x) => x.type === 'CreateSecret');
      const secretName = (secret?.spec['metadata'] as { name: string }).name;
      assert.deepEqual(
        [mint?.spec['boundSecret'], mint?.spec['clusters']],
        [
          secretName,
          [{ name: 'inside', serviceAccount: 'sluice-cluster-inside', namespace: 'shop' }],
        ],
      );
      const enginePod = tasks.filter((x) => x.type === 'CreatePod')[1]?.spec as {
        spec: { containers: { env: { name: string; valueFrom?: unknown }[] }[] };
      };
      const credentials = enginePod.spec.containers[0]?.env.find(
        (e) => e.name === 'SLUICE_CLUSTER_CREDENTIALS',
      );
      assert.deepEqual(credentials?.valueFrom, {
        secretKeyRef: {
          name: (mint?.spec['metadata'] as { name: string }).name,
          key: 'clusters.json',
        },
      });
      for (const task of tasks) await acknowledge(agent, task);
      await t.admin.call('cancelBuild', { params: { buildId: build.id } });
      const stops = await agent.call('pollTasks', { query: { wait: 5 } });
      const deleted = stops.tasks
        .filter((x) => x.type === 'DeleteSecret')
        .map((x) => x.spec['name'])
        .sort();
      assert.deepEqual(
        deleted,
        [secretName, (mint?.spec['metadata'] as { name: string }).name].sort(),
        'both Secrets go with the build',
      );

      // A build on another runtime cannot reach it, and its engine is told why.
      await t.admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
      await t.admin.call('updatePipeline', {
        params: { pipelineId: pipeline.id },
        body: { yaml: NAMES_PROD_AND_PAYMENTS.replace('--context prod', '--context inside') },
      });
      const elsewhere = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const local = await agentClient(t, 'local-agent', ['local']);
      const started = (await local.call('pollTasks', { query: { wait: 5 } })).tasks.find(
        (x) => x.buildId === elsewhere.id,
      );
      assert.ok(started !== undefined, 'the local build was elected');
      await acknowledge(local, started);
      const given = await t.client(String(started.spec.engineToken)).call('engineBuild');
      assert.deepEqual(given.clusters, []);
      assert.deepEqual(
        given.deniedClusters.map((d) => [d.name, d.reason]),
        [
          [
            'inside',
            'it is behind the firewall of runtime k8s, and this build runs on local: run the pipeline on runtime k8s',
          ],
        ],
      );
    } finally {
      await t.close();
    }
  },
  ONE_KIND,
);
