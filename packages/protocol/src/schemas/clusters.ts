/**
 * Kubernetes cluster integrations: the clusters builds deploy to, by name. One reachable from the
 * control plane is given as a kubeconfig (one context; its credentials encrypted at rest, never
 * returned, given decrypted to the engines of the account's builds only, which mask them).
 * @module
 */
import { z } from 'zod';
import { Name, Timestamp } from './common.js';

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

/** A cluster of the account that the build's project may not use, named so a step can say why. */
export const DeniedCluster = z.object({
  name: z.string(),
  projects: z.array(z.string()).describe('The projects that may use it'),
});
export type DeniedCluster = z.infer<typeof DeniedCluster>;
