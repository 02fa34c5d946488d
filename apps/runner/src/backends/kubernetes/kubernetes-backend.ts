/**
 * The runtime backend of a Kubernetes cluster: applies a build's tasks (create or delete one of
 * its objects) through @sluice/kube, reports the cluster's health, and lists and removes what
 * builds left behind for the reaper. It keeps no state of its own: AlreadyExists and NotFound
 * count as done, so a task applied twice (a restarted agent, a retry) has the same effect.
 * @module
 */
import { describeError } from '@sluice/errors';
import { classifyKubeError, formatPermissions, KubeClient } from '@sluice/kube';
import type { KubeObjectSummary } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import type { Task } from '@sluice/protocol';
import { RUNNER_DEFAULTS } from '../../runner-config.js';
import type { KubernetesTarget } from '../../runner-config.js';
import { TaskFailure } from '../../runtime-backend.js';
import type { BuildObjectRef, RuntimeBackend } from '../../runtime-backend.js';
import { GRANT, kubeHealth } from './kube-health.js';
import type { KubeRuntimeCheck } from './kube-health.js';
import { BUILD_LABELS, runtimeSelector } from '@sluice/labels';
import { actionTarget, kubeTaskAction } from './kube-task.js';
import { mintClusterCredentials } from './cluster-credentials.js';
import type { KubeTaskAction } from './kube-task.js';
import { withDindHostAlias } from './dind-host-alias.js';
import { waitForClaimBinding } from './claim-binding.js';
import { CacheRecords } from './cache-records.js';
import { PodMonitor, runPodMonitor } from './pod-monitor.js';
import { WarmPool } from './warm-pool.js';
import { applyThroughPool } from './warm-pool-tasks.js';

/** How long an engine pod's task waits for its dind pod's IP with `dindHostAlias`. */
const DIND_ADDRESS_TIMEOUT_MS = 120_000;

export interface KubernetesBackendOptions {
  logger: Logger;
  /** The agent's environment: proxy and in-cluster variables (none by default). */
  env?: NodeJS.ProcessEnv;
  /** Kubernetes client rate limit: requests per second and burst. */
  qps: number;
  burst: number;
  /** Namespace of the build objects when the target names none. */
  namespace?: string;
  /** How long a stuck build pod, and an unschedulable one, may wait before it is reported. */
  podFailureGraceMs?: number;
  unschedulableGraceMs?: number;
}

/** How long the agent remembers a pod it deleted, so the monitor does not report it gone. */
const DELETED_MEMORY_MS = 10 * 60_000;

/**
 * How long the agent trusts that the namespace's dind Service it made (or found) is still there:
 * each build's task to make it is then done without a request.
 */
const SERVICE_MEMORY_MS = 5 * 60_000;

/** The kinds a build owns, in the order they are deleted (the reverse of creation). */
const DELETE_ORDER = ['Pod', 'ConfigMap', 'Secret', 'PersistentVolumeClaim'] as const;

/**
 * @throws InputError `SLUICE_KUBE_CONFIG_INVALID` when the target's source cannot be used
 *   (no service account mounted, an unreadable kubeconfig, an unknown context, a bad URL).
 */
export function createKubernetesBackend(
  target: KubernetesTarget,
  options: KubernetesBackendOptions,
): Promise<RuntimeBackend> {
  return Promise.resolve().then(() => kubernetesBackend(target, options));
}

function kubernetesBackend(
  target: KubernetesTarget,
  options: KubernetesBackendOptions,
): RuntimeBackend {
  const kube = KubeClient.create({
    source: target.source,
    env: options.env ?? {},
    qps: options.qps,
    burst: options.burst,
  });
  // In-cluster without a namespace of its own, the service account's namespace.
  const namespace = target.namespace ?? options.namespace ?? kube.defaultNamespace ?? 'default';
  const logger = options.logger.child({ component: 'kubernetes-backend', runtime: target.name });
  // What the last health check found: while permissions are missing, creating a build's
  // objects fails at once naming them (a build that could not delete its pods would leak them).
  let checked: Promise<KubeRuntimeCheck> | undefined;
  const check = () => (checked = kubeHealth(kube, target.name, namespace));
  const deleted = new Map<string, number>();
  const inFlight = new Map<string, Set<AbortController>>();
  const own = {
    deleted,
    bindingModes: new Map<string, Promise<string | undefined>>(),
    services: new Map<string, number>(),
  };
  const pool =
    target.warmPool === undefined
      ? undefined
      : WarmPool.create({
          kube,
          runtime: target.name,
          namespace,
          logger,
          settings: target.warmPool,
        });
  return {
    runtime: target.name,
    kind: 'kubernetes',
    apply: async (task, signal) => {
      if (kubeTaskAction(task).action !== 'delete') {
        const { missing } = await (checked ?? check());
        if (missing.length > 0)
          throw new TaskFailure(
            `Runtime ${target.name} cannot run builds: the agent may not ${formatPermissions(missing)} in namespace ${namespace}; ${GRANT(namespace)}`,
            { retriable: false },
          );
      }
      // Aborted when the control plane retries or ends the build after a pod failure.
      const build = task.buildId ?? '';
      const controller = new AbortController();
      const tasks = inFlight.get(build) ?? new Set();
      inFlight.set(build, tasks.add(controller));
      try {
        const both = AbortSignal.any([signal, controller.signal]);
        return await applyTask(kube, logger, task, {
          signal: both,
          hostAlias: target.dindHostAlias,
          own,
          pool,
        });
      } finally {
        tasks.delete(controller);
        if (tasks.size === 0) inFlight.delete(build);
      }
    },
    monitor: ({ report, reportCache, signal, onPass }) => {
      const monitor = new PodMonitor({
        kube,
        runtime: target.name,
        namespace,
        logger,
        report,
        deletedByAgent: (pod) => deleted.has(pod),
        onSettled: (buildId) => {
          for (const controller of inFlight.get(buildId) ?? []) controller.abort();
        },
        podFailureGraceMs: options.podFailureGraceMs ?? RUNNER_DEFAULTS.podFailureGraceMs,
        unschedulableGraceMs: options.unschedulableGraceMs ?? RUNNER_DEFAULTS.unschedulableGraceMs,
      });
      const records =
        reportCache &&
        new CacheRecords({ kube, runtime: target.name, namespace, logger, report: reportCache });
      const pass = async (passSignal?: AbortSignal) => {
        const phases = await monitor.pass(passSignal);
        await records?.pass(passSignal).catch((err: unknown) => {
          if (!signal.aborted)
            logger.warn('cache records pass failed', { reason: describeError(err) });
        });
        return phases;
      };
      // The pool lives as long as the monitor: both are the agent's background work.
      const pooling = pool?.run(signal);
      return Promise.all([runPodMonitor({ pass }, { logger, signal, onPass }), pooling]).then(
        () => undefined,
      );
    },
    warmPool: () => pool?.stats(),
    health: async () => (await check()).health,
    listBuildObjects: () => listBuildObjects(kube, target.name, namespace),
    deleteBuildObjects: (refs) => {
      for (const ref of refs) if (ref.kind === 'Pod') remember(deleted, ref.name);
      return deleteBuildObjects(kube, logger, refs, namespace);
    },
    apiErrors: () => kube.errorCounts(),
    close: () => Promise.resolve(kube.close()),
  };
}

/** Notes a pod the agent deleted, forgetting those deleted long ago. */
function remember(deleted: Map<string, number>, pod: string): void {
  const now = Date.now();
  for (const [name, at] of deleted) if (now - at > DELETED_MEMORY_MS) deleted.delete(name);
  deleted.set(pod, now);
}

async function applyTask(
  kube: KubeClient,
  logger: Logger,
  task: Task,
  options: {
    signal: AbortSignal;
    hostAlias?: boolean;
    own: {
      deleted: Map<string, number>;
      bindingModes: Map<string, Promise<string | undefined>>;
      /** When each Service (`namespace/name`) was last made or found. */
      services: Map<string, number>;
    };
    pool?: WarmPool;
  },
): Promise<void> {
  const { signal } = options;
  let action: KubeTaskAction = kubeTaskAction(task);
  if (action.action === 'delete' && action.ref.kind === 'Pod')
    remember(options.own.deleted, action.ref.name);
  if (
    options.pool !== undefined &&
    (await throughPool(options.pool, task, action, { ...options, logger }))
  ) {
    logger.debug('task applied through the warm pool', {
      taskId: task.id,
      type: task.type,
      buildId: task.buildId,
    });
    return;
  }
  if (options.pool !== undefined && action.action === 'create')
    action = { ...action, manifest: options.pool.ownPod(action.manifest) };
  const service = action.action === 'create' ? serviceKey(action.manifest) : undefined;
  const ensuredAt = service === undefined ? undefined : options.own.services.get(service);
  if (ensuredAt !== undefined && Date.now() - ensuredAt < SERVICE_MEMORY_MS) return;
  if (options.hostAlias === true && action.action === 'create') {
    const manifest = await withDindHostAlias(kube, action.manifest, {
      timeoutMs: DIND_ADDRESS_TIMEOUT_MS,
      signal,
    });
    action = { ...action, manifest };
  }
  try {
    const result =
      action.action === 'create'
        ? await kube.create(action.manifest, { signal })
        : action.action === 'credentials'
          ? await mintClusterCredentials(kube, action.spec, signal)
          : await kube.delete(action.ref, { signal });
    // The dind pod follows: made once its claim is bound, it is scheduled on the first try.
    if (action.action === 'create' && action.manifest.kind === 'PersistentVolumeClaim')
      await waitForClaimBinding(kube, action.manifest, {
        signal,
        log: logger,
        modes: options.own.bindingModes,
      });
    if (service !== undefined) options.own.services.set(service, Date.now());
    const object = actionTarget(action);
    logger.debug('task applied', {
      taskId: task.id,
      type: task.type,
      buildId: task.buildId,
      ...object,
      result,
    });
  } catch (err) {
    if (err instanceof TaskFailure) throw err;
    const operation = action.action === 'credentials' ? 'create' : action.action;
    const { outcome, reason } = classifyKubeError(err, operation);
    if (outcome === 'done') return;
    throw new TaskFailure(reason, { retriable: outcome === 'retry', cause: err });
  }
}

/** `namespace/name` of a Service manifest; undefined for any other kind. */
function serviceKey(manifest: Record<string, unknown>): string | undefined {
  if (manifest['kind'] !== 'Service') return undefined;
  const { name, namespace } = (manifest['metadata'] ?? {}) as { name?: string; namespace?: string };
  return `${namespace ?? ''}/${name ?? ''}`;
}

/** Whether the warm pool did the task; its Kubernetes errors are retriable task failures. */
async function throughPool(
  pool: WarmPool,
  task: Task,
  action: KubeTaskAction,
  options: { signal: AbortSignal; logger: Logger; own: { deleted: Map<string, number> } },
): Promise<boolean> {
  try {
    return await applyThroughPool(pool, task, action, {
      signal: options.signal,
      logger: options.logger,
      deleted: (pod) => remember(options.own.deleted, pod),
    });
  } catch (err) {
    if (err instanceof TaskFailure) throw err;
    const { outcome, reason } = classifyKubeError(err, 'patch');
    throw new TaskFailure(reason, { retriable: outcome !== 'fail', cause: err });
  }
}

async function listBuildObjects(
  kube: KubeClient,
  runtime: string,
  namespace: string,
): Promise<BuildObjectRef[]> {
  const labelSelector = runtimeSelector(runtime);
  const lists = await Promise.all(
    DELETE_ORDER.map((kind) => kube.list({ kind, namespace, labelSelector })),
  );
  return lists.flat().flatMap((object: KubeObjectSummary) => {
    const buildId = object.labels[BUILD_LABELS.buildId];
    if (buildId === undefined || buildId === '') return [];
    const { kind, name, phase } = object;
    return [{ buildId, kind, name, namespace: object.namespace, phase }];
  });
}

/** Pods first (the engine before its dind), then ConfigMap, Secret, and the PVC last. */
function deletionRank(ref: BuildObjectRef): number {
  const kind = (DELETE_ORDER as readonly string[]).indexOf(ref.kind);
  const rank = kind === -1 ? DELETE_ORDER.length : kind;
  // Engine pods are named engine-<build>: the engine goes before the daemon it uses.
  return rank * 2 + (ref.kind === 'Pod' && !ref.name.startsWith('engine') ? 1 : 0);
}

async function deleteBuildObjects(
  kube: KubeClient,
  logger: Logger,
  refs: BuildObjectRef[],
  namespace: string,
): Promise<void> {
  const ordered = [...refs].sort((a, b) => deletionRank(a) - deletionRank(b));
  const failures: unknown[] = [];
  for (const ref of ordered) {
    const objectNamespace = ref.namespace ?? namespace;
    try {
      const result = await kube.delete({
        kind: ref.kind,
        namespace: objectNamespace,
        name: ref.name,
      });
      logger.debug('build object deleted', {
        buildId: ref.buildId,
        kind: ref.kind,
        name: ref.name,
        result,
      });
    } catch (err) {
      failures.push(err);
      logger.warn('build object not deleted', {
        buildId: ref.buildId,
        kind: ref.kind,
        name: ref.name,
        reason: classifyKubeError(err, 'delete').reason,
      });
    }
  }
  // Every object was tried; the first failure tells the reaper to come back for the rest.
  if (failures.length > 0) throw failures[0];
}
