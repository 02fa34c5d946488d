/**
 * The one owner of the Kubernetes API: create, delete and list the five core/v1 kinds of build
 * objects, the server version, and access reviews. Every request waits for the token bucket
 * first (`qps`/`burst`) and can be cancelled by a signal. Failures leave as Sluice errors whose
 * `classifyKubeError` outcome says whether to retry; `AlreadyExists` on create and `NotFound` on
 * delete are results, not errors.
 *
 * Why a thin REST client and not @kubernetes/client-node on the request path: the agent's goal
 * is 100 MiB resident while 100 builds run. Importing client-node alone costs 75–80 MiB (its
 * generated models and ObjectSerializer, openid-client, jose, node-fetch, ws, socks), and 1.4
 * makes a new https.Agent — a new TLS connection, the CA file read again — for every request.
 * The agent needs six REST calls, so they are sent here as JSON over one keep-alive pool
 * (`kube-transport.ts`), with the kubeconfig read by `kubeconfig-file.ts` and the answers'
 * `Status` bodies classified as before. client-node stays this package's dependency for what
 * is not worth redoing, and is imported lazily, only by a client that needs it:
 * the credentials of kubeconfig users with `exec` or `auth-provider` (OIDC, gcp, azure,
 * credential plugins), and SOCKS proxies (`client-node-fallback.ts`). The test fixtures
 * (`@sluice/kube/testing`) use it too.
 * @module
 */
import { readFileSync } from 'node:fs';
import { InputError } from '@sluice/errors';
import type { SluiceError } from '@sluice/errors';
import { DEFAULT_KUBE_BURST, DEFAULT_KUBE_QPS } from './kube-settings.js';
import { socksAgent } from './client-node-fallback.js';
import { classifyKubeError, kubeError } from './kube-errors.js';
import type { KubeOperation, KubeTarget } from './kube-errors.js';
import { loadKubeConfig } from './kube-config.js';
import type { KubeSource, LoadedKubeConfig } from './kube-config.js';
import { createKubeCredentials } from './kube-credentials.js';
import type { KubeCredentials } from './kube-credentials.js';
import { checkKind, checkManifest, objectPath } from './kube-objects.js';
import type { KubeKind, ListedObject } from './kube-objects.js';
import { findMissing } from './kube-permissions.js';
import type { KubePermission } from './kube-permissions.js';
import type { ProxyEnv } from '@sluice/protocol/node';
import { createKubeTransport } from './kube-transport.js';
import type { KubeHttpRequest, KubeTls, KubeTransport } from './kube-transport.js';
import { createTokenBucket } from './token-bucket.js';
import type { Clock, TokenBucket } from './token-bucket.js';

/**
 * Connections kept open to one API server. Enough for the default burst to flow (a request
 * takes a few milliseconds), few enough that 100 concurrent builds do not hold 100 TLS sessions.
 */
const MAX_CONNECTIONS = 32;

export interface KubeClientOptions {
  source: KubeSource;
  /** Requests per second once the burst is spent. */
  qps?: number;
  /** Requests that may go at once. */
  burst?: number;
  /** After deleting a PVC that still has finalizers, patch them away (reference FORCE_DELETE_PVC). */
  forceDeletePvc?: boolean;
  /** Proxy and in-cluster variables: the process environment, handed down from its main. */
  env: ProxyEnv;
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

/** A container's state, as a pod's status gives it: at most one of the three is set. */
export interface KubeContainerStatus {
  name: string;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string; message?: string };
    running?: { startedAt?: string };
    terminated?: { reason?: string; message?: string; exitCode?: number };
  };
}

/** What the pod monitor reads of a pod: its name and labels, phase, conditions, containers. */
export interface KubePod {
  metadata: {
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    containerStatuses?: KubeContainerStatus[];
    initContainerStatuses?: KubeContainerStatus[];
  };
}

/** What the agent reads of a build's claim: labels, the provisioner's annotations, its volume. */
export interface KubeClaim {
  metadata: {
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: { volumeName?: string; storageClassName?: string };
  status?: { phase?: string; capacity?: { storage?: string } };
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

export type KubeRawRequest = Omit<KubeHttpRequest, 'headers' | 'signal'> & {
  contentType?: string;
};
type Request = KubeRawRequest;

const MERGE_PATCH = 'application/merge-patch+json';

export class KubeClient {
  /** The API server URL. */
  readonly server: string;
  /** The kubeconfig context's namespace; in-cluster, the service account's. */
  readonly defaultNamespace: string | undefined;
  readonly #transport: KubeTransport;
  readonly #credentials: KubeCredentials;
  readonly #bucket: TokenBucket;
  readonly #forceDeletePvc: boolean;
  /** Failed requests by kind, for the agent's metrics. */
  readonly #errors = new Map<string, number>();
  readonly #cluster: LoadedKubeConfig['cluster'];

  private constructor(
    loaded: LoadedKubeConfig,
    transport: KubeTransport,
    bucket: TokenBucket,
    forceDeletePvc: boolean,
  ) {
    this.server = loaded.server;
    this.defaultNamespace = loaded.namespace;
    this.#cluster = loaded.cluster;
    this.#transport = transport;
    this.#credentials = createKubeCredentials(loaded.user, transport);
    this.#bucket = bucket;
    this.#forceDeletePvc = forceDeletePvc;
  }

  /** @throws InputError `SLUICE_KUBE_CONFIG_INVALID` when the source or the limits are unusable. */
  static create(options: KubeClientOptions): KubeClient {
    // The environment is read here, once, because proxies apply to every source.
    const env = options.env;
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
    const transport = transportFor(loaded);
    return new KubeClient(loaded, transport, bucket, options.forceDeletePvc ?? false);
  }

  /**
   * How a kubeconfig for this API server checks it: the CA (read now: in-cluster it is a mounted
   * file), the server name, and whether checks are off, as the kubeconfig's cluster fields.
   */
  clusterFields(): Record<string, string | boolean> {
    const { ca } = pem('ca', 'the cluster CA', this.#cluster.caData, this.#cluster.caFile);
    return {
      server: this.server,
      ...(ca === undefined
        ? {}
        : { 'certificate-authority-data': Buffer.from(ca).toString('base64') }),
      ...(this.#cluster.tlsServerName === undefined
        ? {}
        : { 'tls-server-name': this.#cluster.tlsServerName }),
      ...(this.#cluster.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
    };
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
    const created = await this.#unlessDone('create', target, options.signal, {
      method: 'POST',
      path: objectPath(checked.kind, namespace),
      body: JSON.stringify(checked),
    });
    return created === undefined ? 'exists' : 'created';
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
    const path = objectPath(kind, ref.namespace, ref.name);
    const deleted = await this.#unlessDone('delete', target, options.signal, {
      method: 'DELETE',
      path,
    });
    if (deleted === undefined) return 'absent';
    if (kind === 'PersistentVolumeClaim' && this.#forceDeletePvc && hasFinalizers(deleted)) {
      await this.#unlessDone('delete', target, options.signal, {
        method: 'PATCH',
        path,
        body: JSON.stringify({ metadata: { finalizers: null } }),
        contentType: MERGE_PATCH,
      });
    }
    return 'deleted';
  }

  async list(query: KubeListQuery, options: KubeRequestOptions = {}): Promise<KubeObjectSummary[]> {
    const kind = checkKind(query.kind);
    const items = await this.#listItems<ListedObject>(kind, query, options.signal);
    return items.map((item) => summarise(kind, query.namespace, item));
  }

  /** Pods with their status, for the pod monitor (one list call however many builds run). */
  async listPods(
    query: Omit<KubeListQuery, 'kind'>,
    options: KubeRequestOptions = {},
  ): Promise<KubePod[]> {
    return this.#listItems<KubePod>('Pod', query, options.signal);
  }

  /** Claims with their annotations and volume, for the agent's build cache records. */
  async listClaims(
    query: Omit<KubeListQuery, 'kind'>,
    options: KubeRequestOptions = {},
  ): Promise<KubeClaim[]> {
    return this.#listItems<KubeClaim>('PersistentVolumeClaim', query, options.signal);
  }

  async #listItems<T>(
    kind: KubeKind,
    query: Omit<KubeListQuery, 'kind'>,
    signal: AbortSignal | undefined,
  ): Promise<T[]> {
    const { namespace, labelSelector } = query;
    const selector =
      labelSelector === undefined ? '' : `?labelSelector=${encodeURIComponent(labelSelector)}`;
    const list = await this.#json<{ items?: T[] }>('list', { kind, namespace }, signal, {
      method: 'GET',
      path: `${objectPath(kind, namespace)}${selector}`,
    });
    return list.items ?? [];
  }

  /** A pod's IP address, or undefined while it has none (not scheduled, sandbox not ready). */
  async podAddress(ref: { namespace: string; name: string }, options: KubeRequestOptions = {}) {
    const target = { kind: 'Pod', ...ref };
    const pod = await this.#json<{ status?: { podIP?: string } }>('read', target, options.signal, {
      method: 'GET',
      path: objectPath('Pod', ref.namespace, ref.name),
    });
    return pod.status?.podIP || undefined;
  }

  /** GET /version: the health check's proof that the API server answers. */
  async serverVersion(options: KubeRequestOptions = {}): Promise<KubeServerVersion> {
    const target = { kind: `the server version of ${this.server}` };
    const info = await this.#json<Partial<KubeServerVersion>>('read', target, options.signal, {
      method: 'GET',
      path: '/version',
    });
    return { gitVersion: info.gitVersion ?? '', major: info.major ?? '', minor: info.minor ?? '' };
  }

  /** Those of `needs` the client's identity may not do in `namespace` (`findMissing`). */
  async missingPermissions(
    namespace: string,
    needs: readonly KubePermission[],
    options: KubeRequestOptions = {},
  ): Promise<KubePermission[]> {
    return findMissing(namespace, needs, (review) =>
      this.#json('create', { kind: review.kind, namespace }, options.signal, {
        method: 'POST',
        path: review.path,
        body: JSON.stringify(review.body),
      }),
    );
  }

  /**
   * One request to any path, for `KubeResources` (the install kinds): resolves to the parsed
   * answer, or undefined when it failed in the way that means there was nothing to do (the
   * object exists on create, is gone on delete).
   */
  async request<T>(
    operation: KubeOperation,
    target: KubeTarget,
    request: Request,
    options: KubeRequestOptions = {},
  ): Promise<T | undefined> {
    const body = await this.#unlessDone(operation, target, options.signal, request);
    if (body === undefined) return undefined;
    try {
      return JSON.parse(body) as T;
    } catch (err) {
      throw kubeError(err, operation, target);
    }
  }

  /** A watch: `request`, its 2xx body given to `onChunk` as it comes; failures as for `list`. */
  async stream(
    target: KubeTarget,
    request: Request,
    onChunk: (chunk: string) => void,
    options: KubeRequestOptions = {},
  ): Promise<void> {
    await this.#send('list', target, options.signal, request, onChunk);
  }

  /**
   * Failed requests by kind since the client was made: `unavailable`, `forbidden`, `not-found`,
   * `conflict`, `rejected`, `unauthorized` (the `SLUICE_KUBE_*` code), or `other`. What the
   * caller counts as done (AlreadyExists on create, NotFound on delete) and requests its own
   * signal aborted are not counted.
   */
  errorCounts(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.#errors);
  }

  requestStats(): KubeRequestStats {
    const { taken, throttled } = this.#bucket.stats();
    return { requests: taken, throttled };
  }

  /** Closes the kept connections; requests after this open new ones. */
  close(): void {
    this.#transport.close();
  }

  /** Sends one request after its token; resolves to the answer's body. */
  async #send(
    operation: KubeOperation,
    target: KubeTarget,
    signal: AbortSignal | undefined,
    request: Request,
    onChunk?: (chunk: string) => void,
  ): Promise<string> {
    try {
      await this.#bucket.take(signal);
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...(await this.#credentials.headers()),
      };
      const { contentType, ...rest } = request;
      if (request.body !== undefined) headers['content-type'] = contentType ?? 'application/json';
      return await this.#transport.send(
        { ...rest, headers, ...(signal === undefined ? {} : { signal }) },
        onChunk,
      );
    } catch (err) {
      const translated = kubeError(err, operation, target);
      if (signal?.aborted !== true) this.#countError(translated);
      throw translated;
    }
  }

  #countError(err: SluiceError): void {
    if (err.details?.['outcome'] === 'done') return;
    const code = /^SLUICE_KUBE_([A-Z_]+)$/.exec(err.code)?.[1];
    const kind = code === undefined ? 'other' : code.toLowerCase().replace(/_/g, '-');
    this.#errors.set(kind, (this.#errors.get(kind) ?? 0) + 1);
  }

  async #json<T>(
    operation: KubeOperation,
    target: KubeTarget,
    signal: AbortSignal | undefined,
    request: Request,
  ): Promise<T> {
    const body = await this.#send(operation, target, signal, request);
    try {
      return JSON.parse(body) as T;
    } catch (err) {
      throw kubeError(err, operation, target);
    }
  }

  /** Sends the request; undefined when it failed in the way that means there was nothing to do. */
  async #unlessDone(
    operation: KubeOperation,
    target: KubeTarget,
    signal: AbortSignal | undefined,
    request: Request,
  ): Promise<string | undefined> {
    try {
      return await this.#send(operation, target, signal, request);
    } catch (err) {
      if (classifyKubeError(err, operation, target).outcome === 'done') return undefined;
      throw err;
    }
  }
}

/** The transport of a loaded configuration, with its CA and client certificate read. */
function transportFor(loaded: LoadedKubeConfig): KubeTransport {
  const { cluster, user } = loaded;
  const tls: KubeTls = {
    rejectUnauthorized: !cluster.insecureSkipTlsVerify,
    ...pem('ca', 'the cluster CA', cluster.caData, cluster.caFile),
    ...pem('cert', 'the client certificate', user.certData, user.certFile),
    ...pem('key', 'the client key', user.keyData, user.keyFile),
    ...(cluster.tlsServerName === undefined ? {} : { servername: cluster.tlsServerName }),
  };
  const proxyUrl = loaded.proxyUrl;
  const scheme = proxyUrl === undefined ? undefined : /^([a-z0-9+.-]+):/i.exec(proxyUrl)?.[1];
  const socks = scheme?.toLowerCase().startsWith('socks') === true;
  if (proxyUrl !== undefined && !socks && scheme !== 'http' && scheme !== 'https') {
    throw new InputError(
      'SLUICE_KUBE_CONFIG_INVALID',
      `Proxy "${proxyUrl}" of the Kubernetes API server ${loaded.server} is not an http, https or socks URL`,
      { hint: 'Set proxy-url (or HTTPS_PROXY) to e.g. http://proxy.example:3128' },
    );
  }
  return createKubeTransport({
    server: loaded.server,
    tls,
    maxSockets: MAX_CONNECTIONS,
    ...(proxyUrl === undefined ? {} : { proxyUrl }),
    ...(socks && proxyUrl !== undefined ? { agent: () => socksAgent(loaded, proxyUrl, tls) } : {}),
  });
}

/** `{ [field]: bytes }` from base64 data or a file; nothing when neither is set. */
function pem(
  field: 'ca' | 'cert' | 'key',
  what: string,
  data: string | undefined,
  file: string | undefined,
): Partial<KubeTls> {
  if (data !== undefined) return { [field]: Buffer.from(data, 'base64') };
  if (file === undefined) return {};
  try {
    return { [field]: readFileSync(file) };
  } catch (err) {
    throw new InputError(
      'SLUICE_KUBE_CONFIG_INVALID',
      `Cannot read ${what} ${file}: ${err instanceof Error ? err.message : String(err)}`,
      { hint: 'Check the path in the kubeconfig (or the mounted service account)', cause: err },
    );
  }
}

function hasFinalizers(body: string): boolean {
  try {
    const finalizers = (JSON.parse(body) as ListedObject).metadata?.finalizers;
    return finalizers !== undefined && finalizers.length > 0;
  } catch {
    return false;
  }
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
