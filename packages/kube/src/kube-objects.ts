/**
 * The five core/v1 kinds the agent makes for builds (Pod, PersistentVolumeClaim, Secret,
 * ConfigMap, Service): their RBAC resource names, a check that a manifest is one of them with a
 * name and a namespace, and the typed client-node calls for each.
 * @module
 */
import type { ConfigurationOptions, CoreV1Api } from '@kubernetes/client-node';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { InputError } from '@sluice/errors';

export const KUBE_KINDS = [
  'Pod',
  'PersistentVolumeClaim',
  'Secret',
  'ConfigMap',
  'Service',
] as const;
export type KubeKind = (typeof KUBE_KINDS)[number];

/** The RBAC resource (plural) of each kind. */
export const KUBE_RESOURCES: Readonly<Record<KubeKind, string>> = {
  Pod: 'pods',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  Secret: 'secrets',
  ConfigMap: 'configmaps',
  Service: 'services',
};

export interface KubeManifest {
  apiVersion: 'v1';
  kind: KubeKind;
  metadata: { name: string; namespace: string; labels?: Record<string, string> } & Record<
    string,
    unknown
  >;
  [field: string]: unknown;
}

const SUPPORTED = `core/v1 ${KUBE_KINDS.join(', ')}`;

export function isKubeKind(kind: unknown): kind is KubeKind {
  return typeof kind === 'string' && (KUBE_KINDS as readonly string[]).includes(kind);
}

/** @throws InputError `SLUICE_KUBE_UNSUPPORTED_KIND` for any other kind or apiVersion. */
export function checkKind(kind: unknown, apiVersion: unknown = 'v1'): KubeKind {
  if (apiVersion === 'v1' && isKubeKind(kind)) return kind;
  throw new InputError(
    'SLUICE_KUBE_UNSUPPORTED_KIND',
    `Kind ${JSON.stringify(kind)} of apiVersion ${JSON.stringify(apiVersion)} is not one Sluice creates (${SUPPORTED})`,
    { hint: 'Only build objects rendered by Sluice can be applied', details: { kind, apiVersion } },
  );
}

function manifestError(message: string): InputError {
  return new InputError('SLUICE_KUBE_MANIFEST_INVALID', message, {
    hint: 'A manifest needs apiVersion, kind, metadata.name and metadata.namespace',
  });
}

/**
 * The manifest, typed, when it is one of the five kinds with a name and a namespace.
 * @throws InputError `SLUICE_KUBE_UNSUPPORTED_KIND` or `SLUICE_KUBE_MANIFEST_INVALID`.
 */
export function checkManifest(manifest: unknown): KubeManifest {
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw manifestError(`A Kubernetes manifest must be an object, got ${JSON.stringify(manifest)}`);
  }
  const { apiVersion, kind, metadata } = manifest as Record<string, unknown>;
  const checked = checkKind(kind, apiVersion);
  if (typeof metadata !== 'object' || metadata === null) {
    throw manifestError(`${checked} manifest has no metadata`);
  }
  for (const field of ['name', 'namespace'] as const) {
    const value = (metadata as Record<string, unknown>)[field];
    if (typeof value !== 'string' || value === '') {
      throw manifestError(
        `${checked} manifest has no metadata.${field} (got ${JSON.stringify(value)})`,
      );
    }
  }
  return manifest as KubeManifest;
}

export interface ListedObject {
  metadata?: V1ObjectMeta;
  status?: unknown;
}

type Options = ConfigurationOptions | undefined;

interface KindApi {
  create(
    core: CoreV1Api,
    namespace: string,
    body: KubeManifest,
    options: Options,
  ): Promise<unknown>;
  delete(core: CoreV1Api, namespace: string, name: string, options: Options): Promise<unknown>;
  list(
    core: CoreV1Api,
    namespace: string,
    labelSelector: string | undefined,
    options: Options,
  ): Promise<{ items: ListedObject[] }>;
}

// The manifests are plain JSON of the same shape as client-node's models, which serialise them
// field by field (fields a model lacks would be dropped; the renderer only uses real ones).
export const KIND_APIS: Readonly<Record<KubeKind, KindApi>> = {
  Pod: {
    create: (core, namespace, body, o) => core.createNamespacedPod({ namespace, body: body }, o),
    delete: (core, namespace, name, o) => core.deleteNamespacedPod({ namespace, name }, o),
    list: (core, namespace, labelSelector, o) =>
      core.listNamespacedPod({ namespace, labelSelector }, o),
  },
  PersistentVolumeClaim: {
    create: (core, namespace, body, o) =>
      core.createNamespacedPersistentVolumeClaim({ namespace, body: body }, o),
    delete: (core, namespace, name, o) =>
      core.deleteNamespacedPersistentVolumeClaim({ namespace, name }, o),
    list: (core, namespace, labelSelector, o) =>
      core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }, o),
  },
  Secret: {
    create: (core, namespace, body, o) => core.createNamespacedSecret({ namespace, body: body }, o),
    delete: (core, namespace, name, o) => core.deleteNamespacedSecret({ namespace, name }, o),
    list: (core, namespace, labelSelector, o) =>
      core.listNamespacedSecret({ namespace, labelSelector }, o),
  },
  ConfigMap: {
    create: (core, namespace, body, o) =>
      core.createNamespacedConfigMap({ namespace, body: body }, o),
    delete: (core, namespace, name, o) => core.deleteNamespacedConfigMap({ namespace, name }, o),
    list: (core, namespace, labelSelector, o) =>
      core.listNamespacedConfigMap({ namespace, labelSelector }, o),
  },
  Service: {
    create: (core, namespace, body, o) =>
      core.createNamespacedService({ namespace, body: body }, o),
    delete: (core, namespace, name, o) => core.deleteNamespacedService({ namespace, name }, o),
    list: (core, namespace, labelSelector, o) =>
      core.listNamespacedService({ namespace, labelSelector }, o),
  },
};
