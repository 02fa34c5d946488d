/**
 * Kubernetes cluster integrations: the clusters builds deploy to, by name. One reachable from the
 * control plane is given as a kubeconfig (one context; its credentials encrypted at rest, never
 * returned, given decrypted to the engines of the account's builds only, which mask them). One
 * behind the firewall is a service account in a runtime's cluster: the control plane keeps where
 * it is, and the runtime's agent asks Kubernetes for a token of it for each build, bound to that
 * build's Secret, so the credentials never leave the cluster.
 * @module
 */
import { z } from 'zod';
import { Name, RuntimeName, Timestamp } from './common.js';

export const ClusterName = Name.describe(
  'What steps name: the kube context of the KUBECONFIG every step gets, `cluster:` of a deploy step',
);

export const ClusterKind = z
  .enum(['kubeconfig', 'behind-firewall'])
  .describe(
    '`kubeconfig`: its credentials are kept by the control plane; `behind-firewall`: they never leave the runtime’s cluster',
  );
export type ClusterKind = z.infer<typeof ClusterKind>;

/** A namespace's name (DNS-1123 label). */
export const NamespaceName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a Kubernetes namespace name (DNS-1123 label)');

export const Cluster = z.object({
  name: ClusterName,
  kind: ClusterKind,
  server: z.string().describe("The API server's URL"),
  namespace: z
    .string()
    .nullable()
    .describe('The namespace steps use when they name none (the context’s, else `default`)'),
  hasCredentials: z.boolean().describe('The credentials themselves are never returned'),
  runtime: z
    .string()
    .nullable()
    .describe(
      'Behind the firewall: the runtime whose builds reach it (its agent makes the tokens)',
    ),
  serviceAccount: z
    .string()
    .nullable()
    .describe(
      "Behind the firewall: the service account whose token steps get, in the runtime's namespace",
    ),
  namespaces: z
    .array(z.string())
    .describe('Behind the firewall: the namespaces its role was granted in'),
  projects: z
    .array(z.string())
    .nullable()
    .describe('The projects whose builds may use it; null: every project of the account'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Cluster = z.infer<typeof Cluster>;

export const CreateCluster = z.object({
  name: ClusterName,
  kubeconfig: z
    .string()
    .min(1)
    .max(262_144)
    .optional()
    .describe(
      'A kubeconfig file (YAML or JSON, at most 256 KiB); the context used is `context`, else its current-context. Its certificates and keys must be inline (`*-data`), its credentials a token, a client certificate or a username and password: exec and auth-provider plugins are refused',
    ),
  context: z.string().min(1).max(253).optional().describe('Which context of the file'),
  namespace: NamespaceName.optional().describe("Overrides the context's namespace"),
  projects: z
    .array(Name)
    .min(1)
    .max(1000)
    .optional()
    .describe('Only the builds of these projects get it (default: every project of the account)'),
  runtime: RuntimeName.optional().describe(
    'Behind the firewall (instead of `kubeconfig`): the Kubernetes runtime whose cluster it is; `sluice create cluster --runtime` makes the service account and its role bindings first',
  ),
  serviceAccount: NamespaceName.optional().describe(
    "Behind the firewall: the service account, in the runtime's namespace",
  ),
  namespaces: z
    .array(NamespaceName)
    .min(1)
    .max(100)
    .optional()
    .describe(
      'Behind the firewall: the namespaces its role was granted in (the first is the default)',
    ),
  server: z
    .string()
    .url()
    .max(2048)
    .optional()
    .describe(
      "Behind the firewall: the API server's address, as shown (steps reach it from inside)",
    ),
});
export type CreateCluster = z.infer<typeof CreateCluster>;

/** What an engine gets for a cluster: one context named after it, credentials decrypted. */
export const EngineCluster = z.object({
  name: z.string(),
  /** A kubeconfig holding this cluster alone, its one context named `name`. */
  kubeconfig: z.string(),
  /** Its secrets (token, keys, password), for the engine to mask. */
  secrets: z.array(z.string()),
});
export type EngineCluster = z.infer<typeof EngineCluster>;

/** A cluster behind the firewall of the build's runtime: the agent mints its token in the cluster. */
export const InClusterCluster = z.object({
  name: z.string(),
  serviceAccount: z.string(),
  /** The namespace its steps use when they name none. */
  namespace: z.string(),
});
export type InClusterCluster = z.infer<typeof InClusterCluster>;

/** A cluster of the account this build may not use, named so a step can say why. */
export const DeniedCluster = z.object({
  name: z.string(),
  projects: z.array(z.string()).describe('The projects that may use it'),
  reason: z
    .string()
    .optional()
    .describe('Why, when it is not the projects: a cluster behind another runtime’s firewall'),
});
export type DeniedCluster = z.infer<typeof DeniedCluster>;

/**
 * The spec of a `CreateClusterCredentials` task: the agent asks Kubernetes for a token of each
 * cluster's service account (TokenRequest, bound to the build Secret `boundSecret`, so it stops
 * working when the build's objects go) and writes a Secret `metadata` whose `key` is the
 * engine's: `{ clusters: EngineCluster[], failed: { name, reason }[] }`.
 */
export const ClusterCredentialsTask = z.object({
  metadata: z.object({
    name: z.string().min(1).max(253),
    namespace: NamespaceName,
    labels: z.record(z.string(), z.string()),
  }),
  boundSecret: z.string().min(1).max(253),
  key: z.string().min(1).max(253).describe('The key of the Secret the engine reads'),
  expirationSeconds: z.number().int().min(600).max(604_800),
  clusters: z.array(InClusterCluster).min(1).max(100),
});
export type ClusterCredentialsTask = z.infer<typeof ClusterCredentialsTask>;

/** What the agent writes for the engine: the clusters it could mint tokens for, and why not the rest. */
export const ClusterCredentials = z.object({
  clusters: z.array(EngineCluster),
  failed: z.array(z.object({ name: z.string(), reason: z.string() })),
});
export type ClusterCredentials = z.infer<typeof ClusterCredentials>;
