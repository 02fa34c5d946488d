/**
 * The engine pod of a build (reference §2.3): `sluice engine`, told where the control plane is,
 * its token (by reference to the build Secret, never in the pod spec), and how to reach its
 * dind over mutual TLS. Settings the engine applies to steps travel as SLUICE_* variables.
 * Its log spool is a directory of the build's volume (`subPath`), so lines not yet acknowledged
 * survive the engine's pod and take the volume's space, not the node's: a retried engine pod of
 * the build resends them. A volume is attached to one node (ReadWriteOnce), so the engine pod
 * must run on its dind pod's node: a required pod affinity to that pod says so.
 * @module
 */
import type { RuntimeScheduler } from '../schema/runtime-spec-schema.js';
import {
  BUILD_LABELS,
  BUILD_SECRET_KEYS,
  CLUSTER_CREDENTIALS,
  componentLabels,
  DIND_PORT,
} from './build-context.js';
import type { BuildContext } from './build-context.js';
import {
  defined,
  envList,
  namedList,
  placement,
  podMetadata,
  proxyEnv,
  secretFilesVolume,
} from './pod-common.js';
import type { EnvVar, KubeObject } from './pod-common.js';
import { engineCleanerEnv } from './engine-cleaner-env.js';

export const DOCKER_CLIENT_CERT_DIR = '/etc/sluice/docker-client';
/** Each `userEnvVars` entry reaches the engine under this prefix; the engine gives it to steps. */
export const USER_ENV_PREFIX = 'SLUICE_USER_ENV_';
/** The same for an entry read from a Secret (`secretKeyRef`): the engine masks its value too. */
export const USER_SECRET_ENV_PREFIX = 'SLUICE_USER_SECRET_ENV_';
const DEFAULT_COMMAND = ['sluice', 'engine'];
/** Where the engine container mounts its spool directory of the build's volume. */
export const ENGINE_LOG_SPOOL_DIR = '/var/lib/sluice/log-spool';
/** That directory on the volume, beside dind's data (`/var/lib/docker/sluice-log-spool` in dind). */
export const LOG_SPOOL_SUBPATH = 'sluice-log-spool';
const BUILD_VOLUME = 'build-volume';
/** The node label every kubelet sets: the topology of "the same node". */
const SAME_NODE = 'kubernetes.io/hostname';

function json(name: string, value: unknown): EnvVar[] {
  return value === undefined ? [] : [{ name, value: JSON.stringify(value) }];
}

/** What the engine needs to run the build, which a user's `envVars` cannot override. */
function engineEnv(context: BuildContext): EnvVar[] {
  const { spec, build, names } = context;
  const dind = spec.dockerDaemonScheduler;
  const userMounts = namedList(dind?.userVolumeMounts);
  return [
    { name: 'SLUICE_BUILD_ID', value: build.buildId },
    { name: 'SLUICE_SERVER_URL', value: spec.controlPlaneUrl ?? build.controlPlaneUrl },
    {
      name: 'SLUICE_ENGINE_TOKEN',
      valueFrom: { secretKeyRef: { name: names.secret, key: BUILD_SECRET_KEYS.engineToken } },
    },
    { name: 'SLUICE_DIND_POD', value: names.dindPod },
    { name: 'SLUICE_LOG_SPOOL_DIR', value: ENGINE_LOG_SPOOL_DIR },
    { name: 'SLUICE_LOG_SPOOL_ONE_BUILD', value: '1' },
    { name: 'DOCKER_HOST', value: `tcp://${context.dindHost}:${DIND_PORT}` },
    { name: 'DOCKER_TLS_VERIFY', value: '1' },
    { name: 'DOCKER_CERT_PATH', value: DOCKER_CLIENT_CERT_DIR },
    ...json('SLUICE_WORKFLOW_LIMITS', spec.runtimeScheduler?.workflowLimits),
    // Paths inside dind that every step container gets too (reference §2.2 userVolumeMounts).
    ...json('SLUICE_USER_VOLUME_MOUNTS', userMounts.length > 0 ? userMounts : undefined),
    ...json('SLUICE_DIND_USER_ACCESS', dind?.userAccess),
    ...engineCleanerEnv(dind?.envVars),
    ...clusterCredentialsEnv(context),
  ];
}

/** The tokens the agent minted for the build's clusters behind the firewall, by reference. */
function clusterCredentialsEnv(context: BuildContext): EnvVar[] {
  if ((context.build.clusters ?? []).length === 0) return [];
  const { key, env: name } = CLUSTER_CREDENTIALS;
  return [{ name, valueFrom: { secretKeyRef: { name: context.names.clusterSecret, key } } }];
}

function env(context: BuildContext, engine: RuntimeScheduler): EnvVar[] {
  const own = engineEnv(context);
  const taken = new Set(own.map((e) => e.name));
  const user = (engine.userEnvVars ?? []).map((e) => ({
    ...e,
    name: `${isSecretRef(e.valueFrom) ? USER_SECRET_ENV_PREFIX : USER_ENV_PREFIX}${e.name}`,
  }));
  // The engine talks to dind by DNS name; a proxy would see (and fail) that TLS connection.
  const proxy = proxyEnv(context.spec.proxy, [context.dindHost]);
  return [...envList(engine.envVars).filter((e) => !taken.has(e.name)), ...own, ...user, ...proxy];
}

function isSecretRef(source: unknown): boolean {
  return typeof source === 'object' && source !== null && 'secretKeyRef' in source;
}

/**
 * The spec's affinity with one more required pod-affinity term: the node of this build's dind
 * pod (which carries its build's labels whatever attempt it is), where the volume is attached.
 */
function onDindNode(context: BuildContext, affinity: RuntimeScheduler['affinity']): unknown {
  const dind = componentLabels(context, 'dind');
  const term = {
    labelSelector: {
      matchLabels: {
        [BUILD_LABELS.buildId]: dind[BUILD_LABELS.buildId],
        [BUILD_LABELS.component]: dind[BUILD_LABELS.component],
      },
    },
    topologyKey: SAME_NODE,
  };
  const podAffinity = affinity?.podAffinity;
  return {
    ...affinity,
    podAffinity: {
      ...podAffinity,
      requiredDuringSchedulingIgnoredDuringExecution: [
        ...(podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
        term,
      ],
    },
  };
}

export function renderEnginePod(context: BuildContext, engine: RuntimeScheduler): KubeObject {
  const labels = componentLabels(context, 'engine');
  const keys = [BUILD_SECRET_KEYS.ca, BUILD_SECRET_KEYS.clientCert, BUILD_SECRET_KEYS.clientKey];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: podMetadata(context.names.enginePod, engine, {
      namespace: context.namespace,
      labels,
    }),
    spec: {
      restartPolicy: 'Never',
      ...placement(engine),
      affinity: onDindNode(context, engine.affinity),
      containers: [
        {
          name: 'engine',
          image: engine.image,
          ...defined({ imagePullPolicy: engine.imagePullPolicy, resources: engine.resources }),
          command: engine.command ?? DEFAULT_COMMAND,
          env: env(context, engine),
          volumeMounts: [
            { name: 'docker-client', mountPath: DOCKER_CLIENT_CERT_DIR, readOnly: true },
            { name: BUILD_VOLUME, mountPath: ENGINE_LOG_SPOOL_DIR, subPath: LOG_SPOOL_SUBPATH },
          ],
        },
      ],
      // Only the client trio: the daemon's server key stays out of this pod.
      volumes: [
        secretFilesVolume('docker-client', context.names.secret, keys),
        { name: BUILD_VOLUME, persistentVolumeClaim: { claimName: context.names.pvc } },
      ],
    },
  };
}
