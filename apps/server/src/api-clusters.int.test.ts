/**
 * Cluster integrations through the API: a kubeconfig's context is kept under the cluster's name,
 * its token encrypted at rest (not in the row, not in any answer or log), and given decrypted
 * to the engine of a build of the account; a file steps could not use is refused saying what to
 * change; a name is taken once; a cluster limited to other projects is not given, only named;
 * a deleted cluster is gone.
 * @module
 */
import assert from 'node:assert/strict';
import { useTestDatabases } from '@sluice/db/testing';
import {
  acknowledge,
  agentClient,
  LOCAL_RUNTIME,
  ONE_KIND,
  startTestServer,
} from './server-harness.test-support.js';
import { failure, setUp } from './trigger-deliveries.test-support.js';

const databases = useTestDatabases();
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
      // A build's engine gets the context, named after the cluster, with the token.
      const build = await t.admin.call('createBuild', {
        params: { pipelineId: pipeline.id },
        body: {},
      });
      const agent = await agentClient(t);
      const { tasks } = await agent.call('pollTasks', { query: { wait: 5 } });
      const task = tasks.find((x) => x.buildId === build.id);
      assert.ok(task !== undefined, 'the build was elected');
      await acknowledge(agent, task);
      const engine = t.client(String(task.spec.engineToken));
      const given = await engine.call('engineBuild');
      assert.deepEqual(
        given.clusters.map((c) => [c.name, c.secrets]),
        [['prod', [TOKEN]]],
      );
      assert.deepEqual(
        given.deniedClusters,
        [{ name: 'payments', projects: ['billing', 'payments'] }],
        'a cluster for other projects is named, never given',
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
