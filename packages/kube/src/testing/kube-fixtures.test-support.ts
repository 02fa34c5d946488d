/**
 * Set-up that kube-tier tests of the agent share, done as the test cluster's admin: namespaces,
 * service accounts with exactly the permissions a test grants (and their tokens, which 1.20's
 * token controller writes into Secrets), and the `KubeSource`s that connect as either. Tests
 * outside this package use it so that only `@sluice/kube` imports @kubernetes/client-node.
 * @module
 */
import { readFileSync } from 'node:fs';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { V1PolicyRule } from '@kubernetes/client-node';
import { eventually } from '@sluice/testkit';
import type { KubernetesCluster } from '@sluice/testkit';
import type { KubeSource } from '../kube-config.js';
import type { KubePermission } from '../kube-permissions.js';

/** What the fixtures need of `useKubernetes()`'s cluster. */
export type TestCluster = Pick<
  KubernetesCluster,
  'kubeConfig' | 'kubeconfigPath' | 'server' | 'caFile'
>;

export interface TestServiceAccountOptions {
  namespace: string;
  name: string;
  /** Granted through a Role of the same name; none when empty. */
  permissions?: readonly KubePermission[];
}

function admin(cluster: TestCluster): { core: CoreV1Api; rbac: RbacAuthorizationV1Api } {
  return {
    core: cluster.kubeConfig.makeApiClient(CoreV1Api),
    rbac: cluster.kubeConfig.makeApiClient(RbacAuthorizationV1Api),
  };
}

/** The cluster's admin kubeconfig as a source. */
export function adminSource(cluster: TestCluster): Extract<KubeSource, { type: 'kubeconfig' }> {
  return { type: 'kubeconfig', path: cluster.kubeconfigPath };
}

/** The `*.runtime.yaml` shape: API server URL, bearer token, cluster CA. */
export function tokenSource(
  cluster: TestCluster,
  token: string,
): Extract<KubeSource, { type: 'token' }> {
  return {
    type: 'token',
    host: cluster.server,
    token,
    caPem: readFileSync(cluster.caFile, 'utf8'),
  };
}

/** Creates the namespace and waits for its `default` ServiceAccount (pods need it). */
export async function createNamespace(cluster: TestCluster, name: string): Promise<void> {
  const { core } = admin(cluster);
  await core.createNamespace({ body: { metadata: { name } } });
  await eventually(
    () => core.listNamespacedServiceAccount({ namespace: name }),
    (list) => list.items.some((item) => item.metadata?.name === 'default'),
  );
}

function rulesFor(permissions: readonly KubePermission[]): V1PolicyRule[] {
  return permissions.map(({ verb, resource, group }) => ({
    apiGroups: [group ?? ''],
    resources: [resource],
    verbs: [verb],
  }));
}

/** Creates a ServiceAccount bound to a Role with `permissions`; resolves to its token. */
export async function createServiceAccount(
  cluster: TestCluster,
  options: TestServiceAccountOptions,
): Promise<string> {
  const { core, rbac } = admin(cluster);
  const { namespace, name, permissions = [] } = options;
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  if (permissions.length > 0) {
    await rbac.createNamespacedRole({
      namespace,
      body: { metadata: { name }, rules: rulesFor(permissions) },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    });
  }
  const isTokenOf = (annotations: Record<string, string> | undefined) =>
    annotations?.['kubernetes.io/service-account.name'] === name;
  const secrets = await eventually(
    () => core.listNamespacedSecret({ namespace }),
    (list) => list.items.some((s) => isTokenOf(s.metadata?.annotations)),
  );
  const secret = secrets.items.find((s) => isTokenOf(s.metadata?.annotations));
  const token = Buffer.from(secret?.data?.['token'] ?? '', 'base64').toString('utf8');
  if (token === '')
    throw new Error(`No token Secret appeared for ServiceAccount ${namespace}/${name}`);
  return token;
}
