/**
 * The objects a runner install is made of (Namespace, ServiceAccount, Secret, Role, RoleBinding,
 * Deployment, the warm pool's PriorityClass) and what `sluice runner init|delete|upgrade` reads before acting (Nodes, a
 * StorageClass): applied, read, listed and deleted through the same `KubeClient`. Only the API
 * versions served by every supported cluster (1.20 to 1.36) are known here, so an object of any
 * other apiVersion is refused before it is sent.
 *
 * Applying is server-side apply (`PATCH` with `application/apply-patch+yaml`, one field manager,
 * `force`): the same call creates an object or brings it to the manifest, so a step run twice, or
 * after a kill, leaves each object once. With `dryRun`, the API server checks the object whole
 * (admission included) and stores nothing.
 * @module
 */
import { InputError, isSluiceError } from '@sluice/errors';
import type { KubeClient, KubeRequestOptions } from './kube-client.js';
import type { KubeTarget } from './kube-errors.js';
import type { KubeResource } from './kube-resource.js';
import { objectChanges } from './object-changes.js';
import type { FieldChange } from './object-changes.js';
import { watchResources } from './kube-watch.js';
import type { WatchEnd, WatchEvent, WatchQuery } from './kube-watch.js';

interface KindInfo {
  apiVersion: string;
  resource: string;
  namespaced: boolean;
}

/** Each kind an install uses or reads, with the one apiVersion served from 1.20 to 1.36. */
export const RESOURCE_KINDS = {
  Namespace: { apiVersion: 'v1', resource: 'namespaces', namespaced: false },
  Node: { apiVersion: 'v1', resource: 'nodes', namespaced: false },
  ServiceAccount: { apiVersion: 'v1', resource: 'serviceaccounts', namespaced: true },
  Secret: { apiVersion: 'v1', resource: 'secrets', namespaced: true },
  ConfigMap: { apiVersion: 'v1', resource: 'configmaps', namespaced: true },
  Service: { apiVersion: 'v1', resource: 'services', namespaced: true },
  Pod: { apiVersion: 'v1', resource: 'pods', namespaced: true },
  PersistentVolumeClaim: {
    apiVersion: 'v1',
    resource: 'persistentvolumeclaims',
    namespaced: true,
  },
  Deployment: { apiVersion: 'apps/v1', resource: 'deployments', namespaced: true },
  DaemonSet: { apiVersion: 'apps/v1', resource: 'daemonsets', namespaced: true },
  Role: { apiVersion: 'rbac.authorization.k8s.io/v1', resource: 'roles', namespaced: true },
  RoleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    resource: 'rolebindings',
    namespaced: true,
  },
  ClusterRole: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    resource: 'clusterroles',
    namespaced: false,
  },
  ClusterRoleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    resource: 'clusterrolebindings',
    namespaced: false,
  },
  StorageClass: { apiVersion: 'storage.k8s.io/v1', resource: 'storageclasses', namespaced: false },
  // The warm pool's pods run at a PriorityClass of the install's.
  PriorityClass: {
    apiVersion: 'scheduling.k8s.io/v1',
    resource: 'priorityclasses',
    namespaced: false,
  },
  // The volume provisioner's: the volumes it keeps for reuse, and its leader election.
  PersistentVolume: { apiVersion: 'v1', resource: 'persistentvolumes', namespaced: false },
  Lease: { apiVersion: 'coordination.k8s.io/v1', resource: 'leases', namespaced: true },
} as const satisfies Record<string, KindInfo>;
export type ResourceKind = keyof typeof RESOURCE_KINDS;

export type { KubeResource } from './kube-resource.js';

export interface ResourceRef {
  kind: string;
  name: string;
  /** Required for namespaced kinds, ignored for the others. */
  namespace?: string;
}

/** What applying did: made the object, changed it, or found it as the manifest says. */
export type ApplyResult = 'created' | 'configured' | 'unchanged';

export interface ApplyOptions extends KubeRequestOptions {
  /** The API server checks the object and stores nothing. */
  dryRun?: boolean;
}

/** The field manager of every apply: objects Sluice's installer owns. */
export const FIELD_MANAGER = 'sluice';

function kindInfo(kind: string, apiVersion?: string): KindInfo & { kind: ResourceKind } {
  const info = (RESOURCE_KINDS as Record<string, KindInfo>)[kind];
  if (info !== undefined && (apiVersion === undefined || apiVersion === info.apiVersion))
    return { ...info, kind: kind as ResourceKind };
  const known = Object.entries(RESOURCE_KINDS)
    .map(([name, i]) => `${i.apiVersion} ${name}`)
    .join(', ');
  throw new InputError(
    'SLUICE_KUBE_UNSUPPORTED_KIND',
    `${apiVersion ?? '(any apiVersion)'} ${kind} is not a kind Sluice installs or reads; known: ${known}`,
    {
      hint: 'Use only API versions served from Kubernetes 1.20 to 1.36 (see DESIGN.md, "In the cluster")',
      details: { kind, apiVersion },
    },
  );
}

/** `/apis/apps/v1/namespaces/ci/deployments/agent`; a cluster-wide kind has no namespace part. */
export function resourcePath(ref: { kind: string; namespace?: string; name?: string }): string {
  const info = kindInfo(ref.kind);
  const base = info.apiVersion === 'v1' ? '/api/v1' : `/apis/${info.apiVersion}`;
  if (info.namespaced && (ref.namespace === undefined || ref.namespace === ''))
    throw new InputError('SLUICE_KUBE_MANIFEST_INVALID', `${ref.kind} needs a namespace`, {
      hint: 'Set metadata.namespace',
    });
  const scope = info.namespaced ? `/namespaces/${encodeURIComponent(ref.namespace ?? '')}` : '';
  const name = ref.name === undefined ? '' : `/${encodeURIComponent(ref.name)}`;
  return `${base}${scope}/${info.resource}${name}`;
}

function refOf(manifest: KubeResource): ResourceRef {
  return {
    kind: manifest.kind,
    name: manifest.metadata.name,
    ...(manifest.metadata.namespace === undefined
      ? {}
      : { namespace: manifest.metadata.namespace }),
  };
}

function targetOf(ref: ResourceRef): KubeTarget {
  const info = kindInfo(ref.kind);
  return info.namespaced
    ? { kind: ref.kind, namespace: ref.namespace ?? '', name: ref.name }
    : { kind: ref.kind, name: ref.name };
}

function isNotFound(err: unknown): boolean {
  return isSluiceError(err) && err.details?.['status'] === 404;
}

/** `Deployment sluice/sluice-agent`, `Namespace sluice`. */
export function describeResource(ref: ResourceRef): string {
  return kindInfo(ref.kind).namespaced
    ? `${ref.kind} ${ref.namespace ?? ''}/${ref.name}`
    : `${ref.kind} ${ref.name}`;
}

export class KubeResources {
  readonly #client: KubeClient;

  constructor(client: KubeClient) {
    this.#client = client;
  }

  /** The object, or undefined when there is none. */
  async read(
    ref: ResourceRef,
    options: KubeRequestOptions = {},
  ): Promise<KubeResource | undefined> {
    try {
      return await this.#client.request<KubeResource>(
        'read',
        targetOf(ref),
        { method: 'GET', path: resourcePath(ref) },
        options,
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Creates the object; `exists` when one of that name is there already (left as it is). */
  async create(
    manifest: KubeResource,
    options: KubeRequestOptions = {},
  ): Promise<'created' | 'exists'> {
    kindInfo(manifest.kind, manifest.apiVersion);
    const ref = refOf(manifest);
    const made = await this.#client.request<KubeResource>(
      'create',
      targetOf(ref),
      {
        method: 'POST',
        path: resourcePath({ kind: ref.kind, namespace: ref.namespace ?? '' }),
        body: JSON.stringify(manifest),
      },
      options,
    );
    return made === undefined ? 'exists' : 'created';
  }

  /**
   * Server-side apply of the manifest.
   * @throws InputError `SLUICE_KUBE_UNSUPPORTED_KIND` for a kind or apiVersion not known here,
   *   or the API server's refusal as a `SLUICE_KUBE_*` error.
   */
  async apply(manifest: KubeResource, options: ApplyOptions = {}): Promise<ApplyResult> {
    if (options.dryRun === true) return (await this.planApply(manifest, options)).result;
    const { before, after } = await this.#apply(manifest, options, false);
    if (before === undefined) return 'created';
    return after?.metadata.resourceVersion === before.metadata.resourceVersion
      ? 'unchanged'
      : 'configured';
  }

  /**
   * What a server-side apply of the manifest would do, by the API server's dry run (which checks
   * the object whole, admission included, and stores nothing): `created`, or each field it
   * changes (`configured`), or none (`unchanged`). A dry run never moves the resourceVersion,
   * so the answer compares the objects themselves (object-changes.ts).
   */
  async planApply(
    manifest: KubeResource,
    options: KubeRequestOptions = {},
  ): Promise<{ result: ApplyResult; changes: FieldChange[] }> {
    const { before, after } = await this.#apply(manifest, options, true);
    if (before === undefined) return { result: 'created', changes: [] };
    const changes = objectChanges(before, after ?? before);
    return { result: changes.length > 0 ? 'configured' : 'unchanged', changes };
  }

  async #apply(
    manifest: KubeResource,
    options: KubeRequestOptions,
    dryRun: boolean,
  ): Promise<{ before: KubeResource | undefined; after: KubeResource | undefined }> {
    kindInfo(manifest.kind, manifest.apiVersion);
    const ref = refOf(manifest);
    const before = await this.read(ref, options);
    const query = `?fieldManager=${FIELD_MANAGER}&force=true${dryRun ? '&dryRun=All' : ''}`;
    const after = await this.#client.request<KubeResource>(
      'apply',
      targetOf(ref),
      {
        method: 'PATCH',
        path: `${resourcePath(ref)}${query}`,
        body: JSON.stringify(manifest),
        contentType: 'application/apply-patch+yaml',
      },
      options,
    );
    return { before, after };
  }

  /**
   * Patches the object: RFC 7386 merge patch, or a strategic merge patch (lists of containers
   * merged by name, as `kubectl patch` does); undefined when there is no object.
   */
  async patch(
    ref: ResourceRef,
    patch: Record<string, unknown>,
    options: KubeRequestOptions & { strategic?: boolean } = {},
  ): Promise<KubeResource | undefined> {
    try {
      return await this.#client.request<KubeResource>(
        'patch',
        targetOf(ref),
        {
          method: 'PATCH',
          path: resourcePath(ref),
          body: JSON.stringify(patch),
          contentType: options.strategic
            ? 'application/strategic-merge-patch+json'
            : 'application/merge-patch+json',
        },
        options,
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Deletes the object and what it owns (background propagation); `absent` when it was gone. */
  async delete(ref: ResourceRef, options: KubeRequestOptions = {}): Promise<'deleted' | 'absent'> {
    const gone = await this.#client.request(
      'delete',
      targetOf(ref),
      {
        method: 'DELETE',
        path: resourcePath(ref),
        body: JSON.stringify({
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          propagationPolicy: 'Background',
        }),
      },
      options,
    );
    return gone === undefined ? 'absent' : 'deleted';
  }

  /** The objects of a kind (in a namespace, for namespaced kinds), by label selector. */
  async list(
    query: { kind: string; namespace?: string; labelSelector?: string },
    options: KubeRequestOptions = {},
  ): Promise<KubeResource[]> {
    const selector =
      query.labelSelector === undefined
        ? ''
        : `?labelSelector=${encodeURIComponent(query.labelSelector)}`;
    const target: KubeTarget =
      query.namespace === undefined
        ? { kind: query.kind }
        : { kind: query.kind, namespace: query.namespace };
    const path = resourcePath({
      kind: query.kind,
      ...(query.namespace === undefined ? {} : { namespace: query.namespace }),
    });
    const list = await this.#client.request<{
      items?: Omit<KubeResource, 'kind' | 'apiVersion'>[];
    }>('list', target, { method: 'GET', path: `${path}${selector}` }, options);
    const info = kindInfo(query.kind);
    return (list?.items ?? []).map(
      (item) => ({ ...item, apiVersion: info.apiVersion, kind: query.kind }) as KubeResource,
    );
  }

  /**
   * Watches a kind (in a namespace, by label selector): each event goes to `onEvent` until the
   * server ends the watch (`ended`, with the version to resume from) or the version is too old
   * to resume from (`expired`: start again without one).
   */
  watch(
    query: WatchQuery,
    onEvent: (event: WatchEvent) => void,
    options: KubeRequestOptions = {},
  ): Promise<WatchEnd> {
    kindInfo(query.kind);
    return watchResources(this.#client, resourcePath, query, onEvent, options);
  }
}
