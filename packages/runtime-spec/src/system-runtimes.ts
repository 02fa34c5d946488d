/**
 * The parents Sluice supplies, in the manner of Codefresh's `system/default/hybrid/k8s` family
 * (reference §2.2): `system/default/k8s` (engine and dind pods), `system/default/k8s-guaranteed`
 * (the same with Guaranteed QoS dind) and `system/default/local` (the embedded runtime). A user's
 * runtime extends one of them and sets what only it can know: namespace, StorageClass, labels.
 * @module
 */
import type { WorkflowLimits } from './schema/engine-scheduler.js';
import type { RuntimeSpec } from './schema/runtime-spec-schema.js';

/**
 * The tag of Sluice's images: what images/build-cluster-images.sh makes (`sluice/engine:1`,
 * `sluice/dind:1`), the charts' agent image and `runner init` use, so that the defaults name
 * images a cluster without a registry has.
 */
export const IMAGE_TAG = '1';

export const SYSTEM_RUNTIME_NAMES = {
  k8s: 'system/default/k8s',
  k8sGuaranteed: 'system/default/k8s-guaranteed',
  local: 'system/default/local',
} as const;

/**
 * Labels the control plane puts on a build's dind PVC, so `reuseVolumeSelector` and
 * `reuseVolumeSortOrder` can name them (Codefresh: `codefresh-app`, `pipeline_id`, ...).
 */
export const VOLUME_LABELS = {
  app: 'sluice.io/app',
  runtime: 'sluice.io/runtime',
  project: 'sluice.io/project-id',
  pipeline: 'sluice.io/pipeline-id',
  branch: 'sluice.io/branch',
  trigger: 'sluice.io/trigger',
} as const;

/** Retries on new pods of a build whose pod failed for an infrastructure reason. */
export const DEFAULT_INFRASTRUCTURE_RETRIES = 1;

/** The Codefresh chart's defaults (reference §2.2). */
export const DEFAULT_WORKFLOW_LIMITS: Required<WorkflowLimits> = {
  MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS: 600,
  MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION: 86400,
  MAXIMUM_ELECTED_STATE_AGE_ALLOWED: 900,
  MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES: 30,
  MAXIMUM_RETRY_ATTEMPTS_ALLOWED: 20,
  MAXIMUM_TERMINATING_STATE_AGE_ALLOWED: 900,
  MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE: 300,
  TIME_ENGINE_INACTIVE_UNTIL_TERMINATION: 300,
  TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY: 60,
  TIME_INACTIVE_UNTIL_TERMINATION: 2700,
};

const k8s: RuntimeSpec = {
  version: 1,
  metadata: { name: SYSTEM_RUNTIME_NAMES.k8s, agent: false },
  description: 'Sluice defaults for Kubernetes: an engine pod and a dind pod per build',
  runtimeScheduler: {
    type: 'KubernetesPod',
    image: `sluice/engine:${IMAGE_TAG}`,
    imagePullPolicy: 'IfNotPresent',
    command: ['sluice', 'engine'],
    workflowLimits: DEFAULT_WORKFLOW_LIMITS,
    cluster: { serviceAccount: 'sluice-engine' },
    resources: {
      requests: { cpu: '100m', memory: '128Mi' },
      limits: { cpu: '1000m', memory: '2048Mi' },
    },
    terminationGracePeriodSeconds: 180,
  },
  dockerDaemonScheduler: {
    type: 'DindKubernetesPod',
    dindImage: `sluice/dind:${IMAGE_TAG}`,
    imagePullPolicy: 'IfNotPresent',
    userAccess: true,
    pvcs: {
      dind: {
        name: 'dind',
        volumeSize: '16Gi',
        // One cache per pipeline; among its volumes, prefer the same branch, then trigger.
        reuseVolumeSelector: `${VOLUME_LABELS.app},${VOLUME_LABELS.pipeline}`,
        reuseVolumeSortOrder: `${VOLUME_LABELS.branch},${VOLUME_LABELS.trigger}`,
      },
    },
    defaultDindResources: {
      requests: { cpu: '390m', memory: '255Mi' },
      limits: { cpu: '2500m', memory: '4096Mi' },
    },
    tolerations: [{ key: 'sluice.io/dind', operator: 'Exists', effect: 'NoSchedule' }],
    // Time for the daemon's own clean-up on SIGTERM before the volume is released.
    terminationGracePeriodSeconds: 300,
    clientCertPath: '/etc/ssl/sluice/',
    containerSecurityContext: { privileged: true },
  },
};

const k8sGuaranteed: RuntimeSpec = {
  version: 1,
  metadata: { name: SYSTEM_RUNTIME_NAMES.k8sGuaranteed, agent: false },
  description: 'Sluice defaults for Kubernetes with Guaranteed QoS dind (requests = limits)',
  extends: [SYSTEM_RUNTIME_NAMES.k8s],
  dockerDaemonScheduler: {
    defaultDindResources: {
      requests: { cpu: '1000m', memory: '2048Mi' },
      limits: { cpu: '1000m', memory: '2048Mi' },
    },
  },
};

const local: RuntimeSpec = {
  version: 1,
  metadata: { name: SYSTEM_RUNTIME_NAMES.local, agent: false },
  description: 'The embedded runtime: engine processes on this machine, builds on its Docker',
  runtimeScheduler: { type: 'LocalDocker', workflowLimits: DEFAULT_WORKFLOW_LIMITS },
  dockerDaemonScheduler: { type: 'LocalDocker', userAccess: true },
};

const SYSTEM_SPECS: ReadonlyMap<string, RuntimeSpec> = new Map(
  [k8s, k8sGuaranteed, local].map((spec) => [spec.metadata.name, spec]),
);

/** Names under `system/` belong to Sluice; users cannot create runtimes there. */
export function isSystemRuntimeName(name: string): boolean {
  return name.startsWith('system/');
}

/** A copy of the built-in spec `name`, free to change, or undefined. */
export function systemRuntimeSpec(name: string): RuntimeSpec | undefined {
  const spec = SYSTEM_SPECS.get(name);
  return spec === undefined ? undefined : structuredClone(spec);
}

/** Every built-in spec, copied. */
export function systemRuntimeSpecs(): RuntimeSpec[] {
  return [...SYSTEM_SPECS.values()].map((spec) => structuredClone(spec));
}
