/**
 * A `CreateClusterCredentials` task: the build's clusters behind the runtime's firewall get
 * their credentials here, inside the cluster. For each, the agent asks Kubernetes for a token
 * of the cluster's service account (TokenRequest), bound to the build's Secret, so the token
 * stops working when the build's objects are deleted even before it expires; then it writes
 * one Secret, labelled as the build's other objects (deleted with them), whose one key
 * the engine pod reads: a kubeconfig of one context per cluster, named after it, that reaches
 * this API server as the agent does (in-cluster: the `kubernetes` Service's address and CA).
 * A token Kubernetes refuses (the service account deleted, the agent's grant to mint it
 * removed) is written down with the refusal: the build fails before a step that names that
 * cluster, saying why, and the other clusters still work. The agent may mint only the tokens
 * `sluice create cluster` granted it (`create` on `serviceaccounts/token`, by name).
 * @module
 */
import { classifyKubeError, KubeResources } from '@sluice/kube';
import type { KubeClient } from '@sluice/kube';
import type {
  ClusterCredentials,
  ClusterCredentialsTask,
  EngineCluster,
  InClusterCluster,
} from '@sluice/protocol';
import { TaskFailure } from '../../runtime-backend.js';

interface TokenRequestAnswer {
  status?: { token?: string };
}

/** Makes the build's cluster Secret; `exists` when an earlier try of the task made it. */
export async function mintClusterCredentials(
  kube: KubeClient,
  spec: ClusterCredentialsTask,
  signal: AbortSignal,
): Promise<'created' | 'exists'> {
  const { namespace, name } = spec.metadata;
  const secrets = new KubeResources(kube);
  // A retried task finds its Secret made: no second set of tokens.
  if ((await secrets.read({ kind: 'Secret', namespace, name }, { signal })) !== undefined)
    return 'exists';
  const bound = await secrets.read(
    { kind: 'Secret', namespace, name: spec.boundSecret },
    { signal },
  );
  const uid = bound?.metadata.uid;
  if (typeof uid !== 'string')
    throw new TaskFailure(
      `The build Secret ${namespace}/${spec.boundSecret} is gone: its cluster tokens would be bound to nothing`,
      { retriable: false },
    );
  const credentials: ClusterCredentials = { clusters: [], failed: [] };
  for (const cluster of spec.clusters) {
    try {
      const token = await requestToken(kube, cluster, { namespace, spec, uid, signal });
      credentials.clusters.push(kubeconfigFor(kube, cluster, token));
    } catch (err) {
      const { outcome, reason } = classifyKubeError(err, 'create');
      if (outcome === 'retry') throw new TaskFailure(reason, { retriable: true, cause: err });
      credentials.failed.push({
        name: cluster.name,
        reason: `${reason} (service account ${namespace}/${cluster.serviceAccount}; sluice create cluster ${cluster.name} --runtime … makes it and the agent's grant)`,
      });
    }
  }
  return kube.create(
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: spec.metadata,
      type: 'Opaque',
      stringData: { [spec.key]: JSON.stringify(credentials) },
    },
    { signal },
  );
}

async function requestToken(
  kube: KubeClient,
  cluster: InClusterCluster,
  bound: { namespace: string; spec: ClusterCredentialsTask; uid: string; signal: AbortSignal },
): Promise<string> {
  const { namespace, spec, uid, signal } = bound;
  const answer = await kube.request<TokenRequestAnswer>(
    'create',
    { kind: 'ServiceAccount', namespace, name: `${cluster.serviceAccount}/token` },
    {
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/serviceaccounts/${cluster.serviceAccount}/token`,
      body: JSON.stringify({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {
          expirationSeconds: spec.expirationSeconds,
          boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: spec.boundSecret, uid },
        },
      }),
    },
    { signal },
  );
  const token = answer?.status?.token;
  if (token === undefined || token === '')
    throw new TaskFailure(
      `Kubernetes answered the token request for ${namespace}/${cluster.serviceAccount} without a token`,
      { retriable: false },
    );
  return token;
}

/** One context named after the cluster: this API server, the token, the cluster's namespace. */
function kubeconfigFor(kube: KubeClient, cluster: InClusterCluster, token: string): EngineCluster {
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster.name, cluster: kube.clusterFields() }],
    users: [{ name: cluster.name, user: { token } }],
    contexts: [
      {
        name: cluster.name,
        context: { cluster: cluster.name, user: cluster.name, namespace: cluster.namespace },
      },
    ],
    'current-context': cluster.name,
  };
  return { name: cluster.name, kubeconfig: JSON.stringify(kubeconfig), secrets: [token] };
}
