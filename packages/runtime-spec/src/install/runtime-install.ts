/**
 * The objects of a runtime installed in a cluster, for `sluice runner init` (which has no Helm):
 * exactly what `charts/sluice-runtime` renders for the same values, kept equal to the chart by a
 * test that renders both (test/e2e/charts.e2e.test.ts). Pure: values in, manifests out.
 * @module
 */

import { IMAGE_TAG } from '../system-runtimes.js';
import type { InstallObject } from './install-object.js';
import { renderProvisionerInstall, VOLUMES_DEFAULTS } from './provisioner-install.js';
import type { VolumesValues } from './provisioner-install.js';

export type { InstallObject } from './install-object.js';

export interface RuntimeInstallValues {
  controlPlane: { url: string };
  runtime: {
    name: string;
    namespace?: string;
    createNamespace?: boolean;
    dindHostAlias?: boolean;
    engineServiceAccount?: { create?: boolean; name?: string };
    /** Pods kept running ahead of builds (docs/warm-pool.md); none when both sizes are 0. */
    warmPool?: { minSize?: number; maxSize?: number; mode?: 'fixed' | 'adaptive' };
  };
  agent: {
    token?: string;
    existingSecret?: { name?: string; key?: string };
    image?: { repository?: string; tag?: string; pullPolicy?: string };
    replicas?: number;
    concurrency?: number;
    drainSeconds?: number;
    httpPort?: number;
    resources?: Record<string, unknown>;
    nodeSelector?: Record<string, string>;
    tolerations?: Record<string, unknown>[];
    extraEnv?: Record<string, string>;
    /** A Secret of `*.runtime.yaml` files: runtimes in other clusters. */
    runtimesSecret?: string;
    serviceAccount?: { create?: boolean; name?: string; annotations?: Record<string, string> };
  };
  rbac?: { create?: boolean };
  /** The volume provisioner, for warm build caches (`provisioner-install.ts`). */
  volumes?: VolumesValues;
  proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
}

export interface RuntimeInstallOptions {
  /** The release name: objects are `<release>-agent`. */
  release: string;
  /** Where the agent runs. */
  namespace: string;
  values: RuntimeInstallValues;
  /** `app.kubernetes.io/managed-by`: `sluice` for the wizard, `Helm` for the chart. */
  managedBy?: string;
  /** `app.kubernetes.io/version` (the chart's appVersion). */
  version?: string;
}

/** Where the agent reads `*.runtime.yaml` files of runtimes in other clusters. */
export const RUNTIMES_DIR = '/etc/sluice/runtimes';

/** The chart's values.yaml defaults. */
export const RUNTIME_INSTALL_DEFAULTS = {
  image: { repository: 'sluice/engine', tag: IMAGE_TAG, pullPolicy: 'IfNotPresent' },
  replicas: 1,
  concurrency: 10,
  drainSeconds: 30,
  httpPort: 8080,
  resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } },
  tokenKey: 'token',
  engineServiceAccount: 'sluice-engine',
} as const;

/** What the agent may do in the runtime namespace (the agent's AGENT_PERMISSIONS). */
export const AGENT_ROLE_RULES = [
  {
    apiGroups: [''],
    resources: ['pods', 'secrets', 'configmaps', 'persistentvolumeclaims'],
    verbs: ['create', 'delete', 'list', 'get'],
  },
  { apiGroups: [''], resources: ['services'], verbs: ['create', 'get'] },
  // A build takes a warm-pool pod by patching its labels (and its claim's).
  { apiGroups: [''], resources: ['pods', 'persistentvolumeclaims'], verbs: ['patch'] },
];

/** The PriorityClass value of warm-pool pods. */
export const WARM_POOL_PRIORITY = -1_000_000;

/** The install's PriorityClass of its warm pool: cluster-wide, so named by namespace and release. */
export function warmPoolPriorityClass(release: string, namespace: string): string {
  return `sluice-warm-pool-${namespace}-${release}`;
}

/**
 * The install's PriorityClass of the pods builds make of their own beside a warm pool: the
 * default priority, but never preempting, so a burst's builds wait for room instead of
 * preempting pool pods that other builds already run on.
 */
export function warmPoolBuildPriorityClass(release: string, namespace: string): string {
  return `sluice-build-${namespace}-${release}`;
}

/**
 * The `warmPool` of an attached runtime's `*.runtime.yaml` (`runner attach --warm-pool`): its
 * sizes and the PriorityClasses the install made in that runtime's cluster; none without a pool.
 */
export function attachedWarmPool(options: RuntimeInstallOptions):
  | {
      minSize: number;
      maxSize: number;
      mode: 'fixed' | 'adaptive';
      priorityClassName: string;
      buildPriorityClassName: string;
    }
  | undefined {
  const { release, namespace, values } = options;
  if (warmPoolSize(values) === 0) return undefined;
  const pool = values.runtime.warmPool;
  return {
    minSize: pool?.minSize ?? 0,
    maxSize: pool?.maxSize ?? 0,
    mode: pool?.mode ?? 'fixed',
    priorityClassName: warmPoolPriorityClass(release, namespace),
    buildPriorityClassName: warmPoolBuildPriorityClass(release, namespace),
  };
}

function warmPoolSize(values: RuntimeInstallValues): number {
  const pool = values.runtime.warmPool;
  return Math.max(pool?.minSize ?? 0, pool?.maxSize ?? 0);
}

/**
 * The label every object of an install carries with the agent's namespace: with the instance
 * label (the release, unique only within a namespace) it selects one install's objects and no
 * other's, cluster-scoped ones and namespaces included.
 */
export const INSTALL_NAMESPACE_LABEL = 'sluice.io/install-namespace';

/** The label selector of the install `release` in `namespace`. */
export function installSelector(release: string, namespace: string): string {
  return `app.kubernetes.io/instance=${release},app.kubernetes.io/part-of=sluice,${INSTALL_NAMESPACE_LABEL}=${namespace}`;
}

export function renderRuntimeInstall(options: RuntimeInstallOptions): InstallObject[] {
  const { release, namespace, values } = options;
  const agent = values.agent;
  const name = `${release}-agent`.slice(0, 63).replace(/-+$/, '');
  const runtimeNamespace = values.runtime.namespace || namespace;
  const serviceAccount = agent.serviceAccount?.name || name;
  const secretName = agent.existingSecret?.name || name;
  const tokenKey = agent.existingSecret?.key ?? RUNTIME_INSTALL_DEFAULTS.tokenKey;
  const labels = {
    'app.kubernetes.io/name': 'sluice-agent',
    'app.kubernetes.io/instance': release,
    'app.kubernetes.io/part-of': 'sluice',
    'app.kubernetes.io/version': options.version ?? '0.1.0',
    'app.kubernetes.io/managed-by': options.managedBy ?? 'sluice',
    // The release is unique only within its namespace: the two together name the install.
    [INSTALL_NAMESPACE_LABEL]: namespace,
  };
  const meta = (objectName: string, ns: string) => ({ name: objectName, namespace: ns, labels });
  const objects: InstallObject[] = [
    deployment(options, { name, labels, serviceAccount, secretName }),
  ];
  if (
    values.runtime.createNamespace &&
    values.runtime.namespace &&
    values.runtime.namespace !== namespace
  )
    objects.push({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: values.runtime.namespace, labels },
    });
  if (values.rbac?.create ?? true)
    objects.push(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: meta(name, runtimeNamespace),
        rules: AGENT_ROLE_RULES,
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: meta(name, runtimeNamespace),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
      },
    );
  if (!agent.existingSecret?.name)
    objects.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta(secretName, namespace),
      type: 'Opaque',
      stringData: { [tokenKey]: agent.token ?? '' },
    });
  if (agent.serviceAccount?.create ?? true) {
    const annotations = agent.serviceAccount?.annotations ?? {};
    objects.push({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        ...meta(serviceAccount, namespace),
        ...(Object.keys(annotations).length ? { annotations } : {}),
      },
    });
  }
  const engine = values.runtime.engineServiceAccount;
  if (engine?.create ?? true)
    objects.push({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: meta(
        engine?.name || RUNTIME_INSTALL_DEFAULTS.engineServiceAccount,
        runtimeNamespace,
      ),
      automountServiceAccountToken: false,
    });
  if (warmPoolSize(values) > 0)
    objects.push({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: warmPoolPriorityClass(release, namespace), labels },
      // Codefresh's ballast pods' value: below every workload's (0 unless one says otherwise).
      value: WARM_POOL_PRIORITY,
      globalDefault: false,
      description: "Sluice's warm-pool pods: any other workload preempts them",
    });
  if (warmPoolSize(values) > 0)
    objects.push({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: warmPoolBuildPriorityClass(release, namespace), labels },
      value: 0,
      // Served by v1.20 (beta, on by default) through today (GA in v1.24).
      preemptionPolicy: 'Never',
      globalDefault: false,
      description:
        "Sluice's own build pods beside a warm pool: they wait for room, never preempting the pool's pods",
    });
  const image = { ...RUNTIME_INSTALL_DEFAULTS.image, ...agent.image };
  objects.push(
    ...renderProvisionerInstall({
      release,
      namespace,
      runtimeNamespace,
      volumes: values.volumes,
      labels,
      image,
      resources: mergeMaps(VOLUMES_DEFAULTS.resources, values.volumes?.resources ?? {}),
    }),
  );
  return objects;
}

function deployment(
  options: RuntimeInstallOptions,
  names: {
    name: string;
    labels: Record<string, string>;
    serviceAccount: string;
    secretName: string;
  },
): InstallObject {
  const { values, namespace } = options;
  const agent = values.agent;
  const d = RUNTIME_INSTALL_DEFAULTS;
  const image = { ...d.image, ...agent.image };
  const drainSeconds = agent.drainSeconds ?? d.drainSeconds;
  const httpPort = agent.httpPort ?? d.httpPort;
  const env: Record<string, unknown>[] = [
    { name: 'SLUICE_SERVER_URL', value: values.controlPlane.url },
    {
      name: 'SLUICE_AGENT_TOKEN',
      valueFrom: {
        secretKeyRef: { name: names.secretName, key: agent.existingSecret?.key ?? d.tokenKey },
      },
    },
    { name: 'SLUICE_IN_CLUSTER_RUNTIME', value: values.runtime.name },
    { name: 'SLUICE_NAMESPACE', value: values.runtime.namespace || namespace },
    { name: 'SLUICE_AGENT_CONCURRENCY', value: String(agent.concurrency ?? d.concurrency) },
    { name: 'SLUICE_AGENT_DRAIN_SECONDS', value: String(drainSeconds) },
    { name: 'SLUICE_AGENT_HTTP_PORT', value: String(httpPort) },
  ];
  if (values.runtime.dindHostAlias) env.push({ name: 'SLUICE_DIND_HOST_ALIAS', value: 'true' });
  const pool = values.runtime.warmPool;
  if (warmPoolSize(values) > 0)
    env.push(
      { name: 'SLUICE_WARM_POOL_MIN', value: String(pool?.minSize ?? 0) },
      { name: 'SLUICE_WARM_POOL_MAX', value: String(pool?.maxSize ?? 0) },
      { name: 'SLUICE_WARM_POOL_MODE', value: pool?.mode ?? 'fixed' },
      {
        name: 'SLUICE_WARM_POOL_PRIORITY_CLASS',
        value: warmPoolPriorityClass(options.release, namespace),
      },
      {
        name: 'SLUICE_WARM_POOL_BUILD_PRIORITY_CLASS',
        value: warmPoolBuildPriorityClass(options.release, namespace),
      },
    );
  const proxy = values.proxy ?? {};
  if (proxy.httpProxy) env.push({ name: 'HTTP_PROXY', value: proxy.httpProxy });
  if (proxy.httpsProxy) env.push({ name: 'HTTPS_PROXY', value: proxy.httpsProxy });
  if (proxy.noProxy) env.push({ name: 'NO_PROXY', value: proxy.noProxy });
  if (agent.runtimesSecret) env.push({ name: 'SLUICE_AGENT_CONFIG_DIR', value: RUNTIMES_DIR });
  for (const key of Object.keys(agent.extraEnv ?? {}).sort())
    env.push({ name: key, value: agent.extraEnv?.[key] });
  const selector = {
    'app.kubernetes.io/name': 'sluice-agent',
    'app.kubernetes.io/instance': options.release,
  };
  const probe = (path: string, periodSeconds: number, extra: Record<string, number> = {}) => ({
    httpGet: { path, port: 'http' },
    periodSeconds,
    ...extra,
  });
  const resources = mergeMaps(d.resources, agent.resources ?? {});
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.name, namespace, labels: names.labels },
    spec: {
      replicas: agent.replicas ?? d.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: {
          labels: names.labels,
          // Prometheus finds the agent's /metrics, as the chart annotates it.
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(httpPort),
            'prometheus.io/path': '/metrics',
          },
        },
        spec: {
          serviceAccountName: names.serviceAccount,
          terminationGracePeriodSeconds: drainSeconds + 10,
          ...(Object.keys(agent.nodeSelector ?? {}).length
            ? { nodeSelector: agent.nodeSelector }
            : {}),
          ...(agent.tolerations?.length ? { tolerations: agent.tolerations } : {}),
          containers: [
            {
              name: 'agent',
              image: `${image.repository}:${image.tag}`,
              imagePullPolicy: image.pullPolicy,
              // The agent's V8 flags, as apps/cli/bin/sluice-agent.js gives them (bench/agent).
              command: [
                'node',
                '--max-semi-space-size=1',
                '--no-opt',
                '--no-maglev',
                '--max-old-space-size=256',
                '--incremental-marking-soft-trigger=10',
                '--incremental-marking-hard-trigger=30',
                '/usr/local/lib/sluice/sluice.mjs',
                'agent',
              ],
              env,
              ports: [{ name: 'http', containerPort: httpPort }],
              livenessProbe: probe('/healthz', 10, { failureThreshold: 6 }),
              // Not Ready while the control plane cannot be reached (`init` says so at once).
              readinessProbe: probe('/readyz', 5),
              ...(Object.keys(resources).length ? { resources } : {}),
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
              ...(agent.runtimesSecret
                ? { volumeMounts: [{ name: 'runtimes', mountPath: RUNTIMES_DIR, readOnly: true }] }
                : {}),
            },
          ],
          ...(agent.runtimesSecret
            ? { volumes: [{ name: 'runtimes', secret: { secretName: agent.runtimesSecret } }] }
            : {}),
        },
      },
    },
  };
}

/** Maps merged key by key, as Helm merges values over the chart's defaults. */
function mergeMaps(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isMap(current) && isMap(value) ? mergeMaps(current, value) : value;
  }
  return out;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
