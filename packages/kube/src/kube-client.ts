/**
 * The one owner of the Kubernetes API (@kubernetes/client-node underneath): create, delete and
 * list the five core/v1 kinds of build objects, the server version, and access reviews. Every
 * request waits for the token bucket first (`qps`/`burst`) and can be cancelled by a signal.
 * Failures leave as Sluice errors whose `classifyKubeError` outcome says whether to retry;
 * `AlreadyExists` on create and `NotFound` on delete are results, not errors.
 * @module
 */
import {
  AuthorizationV1Api,
  CoreV1Api,
  createConfiguration,
  PatchStrategy,
  ServerConfiguration,
  setHeaderOptions,
  VersionApi,
} from '@kubernetes/client-node';
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { DEFAULT_KUBE_BURST, DEFAULT_KUBE_QPS } from './kube-settings.js';
import { classifyKubeError, kubeError } from './kube-errors.js';
import type { KubeOperation, KubeTarget } from './kube-errors.js';
import { loadKubeConfig } from './kube-config.js';
import type { KubeSource } from './kube-config.js';
import { checkKind, checkManifest, KIND_APIS } from './kube-objects.js';
import type { KubeKind, ListedObject } from './kube-objects.js';
import { formatPermissions } from './kube-permissions.js';
import type { KubePermission } from './kube-permissions.js';
import type { ProxyEnv } from './proxy-env.js';
import { rateLimited, withSignal } from './request-middleware.js';
import { createTokenBucket } from './token-bucket.js';
import type { Clock, TokenBucket } from './token-bucket.js';

/** client-go's defaults in the reference agent (K8S_CLIENT_QPS, K8S_CLIENT_BURST). */

export interface KubeClientOptions {
  source: KubeSource;
  /** Requests per second once the burst is spent. */
  qps?: number;
  /** Requests that may go at once. */
  burst?: number;
  /** After deleting a PVC that still has finalizers, patch them away (reference FORCE_DELETE_PVC). */
  forceDeletePvc?: boolean;
  /** Proxy and in-cluster variables; the process environment when absent. */
  env?: ProxyEnv;
  /** Where the service account is mounted (in-cluster), for tests. */
  serviceAccountDir?: string;
  clock?: Clock;
}

export interface KubeRequestOptions {
  signal?: AbortSignal;
}

export interface KubeObjectRef {
  kind: string;
  namespace: string;
  name: string;
}

export interface KubeListQuery {
  kind: string;
  namespace: string;
  /** `a=b,c=d`, as the API takes it. */
  labelSelector?: string;
}

export interface KubeObjectSummary {
  kind: KubeKind;
  name: string;
  namespace: string;
  labels: Record<string, string>;
  /** Pods and PVCs: `status.phase`. */
  phase?: string;
  /** The object is being deleted (finalizers or a grace period hold it). */
  deleting: boolean;
}

export interface KubeServerVersion {
  gitVersion: string;
  major: string;
  minor: string;
}

export interface KubeRequestStats {
  /** Requests let through the rate limiter. */
  requests: number;
  /** Of those, the ones that had to wait for a token. */
  throttled: number;
}

type Call<T> = (options: ConfigurationOptions | undefined) => Promise<T>;

export class KubeClient {
  /** The API server URL. */
  readonly server: string;
  /** The kubeconfig context's namespace; in-cluster, the service account's. */
  readonly defaultNamespace: string | undefined;
  readonly #core: CoreV1Api;
  readonly #version: VersionApi;
  readonly #authorization: AuthorizationV1Api;
  readonly #bucket: TokenBucket;
  readonly #forceDeletePvc: boolean;

  private constructor(
    loaded: { server: string; namespace: string | undefined },
    apis: { core: CoreV1Api; version: VersionApi; authorization: AuthorizationV1Api },
    bucket: TokenBucket,
    forceDeletePvc: boolean,
  ) {
    this.server = loaded.server;
    this.defaultNamespace = loaded.namespace;
    this.#core = apis.core;
    this.#version = apis.version;
    this.#authorization = apis.authorization;
    this.#bucket = bucket;
    this.#forceDeletePvc = forceDeletePvc;
  }

  /** @throws InputError `SLUICE_KUBE_CONFIG_INVALID` when the source or the limits are unusable. */
  static create(options: KubeClientOptions): KubeClient {
    // The environment is read here, once, because proxies apply to every source.
    const env = options.env ?? process.env;
    const loaded = loadKubeConfig(options.source, {
      env,
      ...(options.serviceAccountDir === undefined
        ? {}
        : { serviceAccountDir: options.serviceAccountDir }),
    });
    const bucket = createTokenBucket({
      qps: options.qps ?? DEFAULT_KUBE_QPS,
      burst: options.burst ?? DEFAULT_KUBE_BURST,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(loaded.server, {}),
      authMethods: { default: loaded.kubeConfig },
      promiseMiddleware: [rateLimited(bucket)],
    });
    const apis = {
      core: new CoreV1Api(configuration),
      version: new VersionApi(configuration),
      authorization: new AuthorizationV1Api(configuration),
    };
    return new KubeClient(loaded, apis, bucket, options.forceDeletePvc ?? false);
  }

  /**
   * Creates the object; `exists` when it already did (nothing is compared or updated).
   * @throws InputError `SLUICE_KUBE_UNSUPPORTED_KIND` / `SLUICE_KUBE_MANIFEST_INVALID`, or a
   *   `SLUICE_KUBE_*` error of the API server's answer.
   */
  async create(manifest: unknown, options: KubeRequestOptions = {}): Promise<'created' | 'exists'> {
    const checked = checkManifest(manifest);
    const { namespace, name } = checked.metadata;
    const target = { kind: checked.kind, namespace, name };
    const api = KIND_APIS[checked.kind];
    const done = await this.#unlessDone('create', target, options.signal, (o) =>
      api.create(this.#core, namespace, checked, o),
    );
    return done ? 'exists' : 'created';
  }

  /**
   * Deletes the object with its own grace period (a Pending pod goes at once); `absent` when it
   * was already gone. With `forceDeletePvc`, a PVC held by finalizers has them patched away.
   */
  async delete(
    ref: KubeObjectRef,
    options: KubeRequestOptions = {},
  ): Promise<'deleted' | 'absent'> {
    const kind = checkKind(ref.kind);
    const target = { kind, namespace: ref.namespace, name: ref.name };
    let deleted: unknown;
    const done = await this.#unlessDone('delete', target, options.signal, async (o) => {
      deleted = await KIND_APIS[kind].delete(this.#core, ref.namespace, ref.name, o);
    });
    if (done) return 'absent';
    if (kind === 'PersistentVolumeClaim' && this.#forceDeletePvc && hasFinalizers(deleted)) {
      await this.#unlessDone('delete', target, options.signal, (o) =>
        this.#core.patchNamespacedPersistentVolumeClaim(
          { namespace: ref.namespace, name: ref.name, body: { metadata: { finalizers: null } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch, o),
        ),
      );
    }
    return 'deleted';
  }

  async list(query: KubeListQuery, options: KubeRequestOptions = {}): Promise<KubeObjectSummary[]> {
    const kind = checkKind(query.kind);
    const { namespace, labelSelector } = query;
    const list = await this.#call('list', { kind, namespace }, options.signal, (o) =>
      KIND_APIS[kind].list(this.#core, namespace, labelSelector, o),
    );
    return list.items.map((item) => summarise(kind, namespace, item));
  }

  /** A pod's IP address, or undefined while it has none (not scheduled, sandbox not ready). */
  async podAddress(ref: { namespace: string; name: string }, options: KubeRequestOptions = {}) {
    const target = { kind: 'Pod', ...ref };
    const pod = await this.#call('read', target, options.signal, (o) =>
      this.#core.readNamespacedPod(ref, o),
    );
    return pod.status?.podIP || undefined;
  }

  /** GET /version: the health check's proof that the API server answers. */
  async serverVersion(options: KubeRequestOptions = {}): Promise<KubeServerVersion> {
    const target = { kind: `the server version of ${this.server}` };
    const info = await this.#call('read', target, options.signal, (o) =>
      this.#version.getCode({}, o),
    );
    return { gitVersion: info.gitVersion, major: info.major, minor: info.minor };
  }

  /** Those of `needs` the client's identity may not do in `namespace` (SelfSubjectAccessReview). */
  async missingPermissions(
    namespace: string,
    needs: readonly KubePermission[],
    options: KubeRequestOptions = {},
  ): Promise<KubePermission[]> {
    const allowed = await Promise.all(
      needs.map(async (need) => {
        const target = { kind: `access review (${formatPermissions([need])})`, namespace };
        const review = await this.#call('create', target, options.signal, (o) =>
          this.#authorization.createSelfSubjectAccessReview(
            {
              body: {
                spec: { resourceAttributes: { namespace, ...need, group: need.group ?? '' } },
              },
            },
            o,
          ),
        );
        return review.status?.allowed === true;
      }),
    );
    return needs.filter((_, index) => allowed[index] !== true);
  }

  requestStats(): KubeRequestStats {
    const { taken, throttled } = this.#bucket.stats();
    return { requests: taken, throttled };
  }

  async #call<T>(
    operation: KubeOperation,
    target: KubeTarget,
    signal: AbortSignal | undefined,
    call: Call<T>,
  ): Promise<T> {
    try {
      return await call(withSignal(signal));
    } catch (err) {
      throw kubeError(err, operation, target);
    }
  }

  /** Runs the call; true when it failed in the way that means there was nothing to do. */
  async #unlessDone(
    operation: KubeOperation,
    target: KubeTarget,
    signal: AbortSignal | undefined,
    call: Call<unknown>,
  ): Promise<boolean> {
    try {
      await this.#call(operation, target, signal, call);
      return false;
    } catch (err) {
      if (classifyKubeError(err, operation, target).outcome === 'done') return true;
      throw err;
    }
  }
}

function hasFinalizers(object: unknown): boolean {
  const finalizers = (object as ListedObject | undefined)?.metadata?.finalizers;
  return finalizers !== undefined && finalizers.length > 0;
}

function summarise(kind: KubeKind, namespace: string, item: ListedObject): KubeObjectSummary {
  const phase = (item.status as { phase?: unknown } | undefined)?.phase;
  return {
    kind,
    name: item.metadata?.name ?? '',
    namespace: item.metadata?.namespace ?? namespace,
    labels: item.metadata?.labels ?? {},
    ...(typeof phase === 'string' ? { phase } : {}),
    deleting: item.metadata?.deletionTimestamp !== undefined,
  };
}
