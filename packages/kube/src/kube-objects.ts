/**
 * The five core/v1 kinds the agent makes for builds (Pod, PersistentVolumeClaim, Secret,
 * ConfigMap, Service): their RBAC resource names, a check that a manifest is one of them with a
 * name and a namespace, and the REST path of each.
 * @module
 */
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

/** What `list` reads of each item of a list answer. */
export interface ListedObject {
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    finalizers?: string[];
  };
  status?: unknown;
}

/** The collection of a kind in a namespace, `/api/v1/namespaces/ci/pods`; with `name`, one object. */
export function objectPath(kind: KubeKind, namespace: string, name?: string): string {
  const collection = `/api/v1/namespaces/${encodeURIComponent(namespace)}/${KUBE_RESOURCES[kind]}`;
  return name === undefined ? collection : `${collection}/${encodeURIComponent(name)}`;
}
