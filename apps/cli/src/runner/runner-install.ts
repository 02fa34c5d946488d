/**
 * What an install is made of, from the settings: the cluster objects (the runtime chart's, by
 * `renderRuntimeInstall`, plus the agent's namespace as `helm --create-namespace` would make
 * it, and the install's record of its settings), the runtime environment registered with the control plane, and the chart values of the
 * same install (`--generate-helm-values-file`). Pure.
 * @module
 */
import {
  deepMerge,
  renderRuntimeInstall,
  RUNTIME_INSTALL_DEFAULTS,
  volumesStorageClass,
} from '@sluice/runtime-spec';
import type { InstallObject } from '@sluice/runtime-spec';
import { CLI_VERSION } from '../version.js';
import { installRecordObject } from './install-record.js';
import type { RunnerSettings } from './runner-settings.js';

/**
 * Objects are applied (and planned) in this order: each exists before what refers to it, and
 * namespaces before anything in them. A kind not listed goes before the workloads.
 */
const KIND_ORDER = [
  'Namespace',
  'StorageClass',
  'ServiceAccount',
  'Secret',
  'ConfigMap',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'DaemonSet',
  'Deployment',
];

function kindRank(kind: string): number {
  const rank = KIND_ORDER.indexOf(kind);
  return rank >= 0 ? rank : KIND_ORDER.indexOf('DaemonSet') - 0.5;
}

export function agentObjectName(release: string): string {
  return `${release}-agent`.slice(0, 63).replace(/-+$/, '');
}

/**
 * The objects, in apply order; the token Secret holds `token` (a placeholder in a dry run).
 * `record: false` leaves out the install's record: a chart install is Helm's to record.
 */
export function installObjects(
  settings: RunnerSettings,
  token: string,
  options: { record?: boolean } = {},
): InstallObject[] {
  const values = { ...settings.values, agent: { ...settings.values.agent, token } };
  const objects = renderRuntimeInstall({
    release: settings.release,
    namespace: settings.namespace,
    values,
    managedBy: 'sluice',
    version: CLI_VERSION,
  });
  const labels = objects[0]?.metadata.labels ?? {};
  if (!objects.some((o) => o.kind === 'Namespace' && o.metadata.name === settings.namespace))
    objects.push({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: settings.namespace, labels },
    });
  if (options.record ?? true) objects.push(installRecordObject(settings, labels));
  return objects.sort((a, b) => kindRank(a.kind) - kindRank(b.kind));
}

/** `Deployment sluice/sluice-agent`. */
export function describeObject(object: InstallObject): string {
  return object.metadata.namespace === undefined
    ? `${object.kind} ${object.metadata.name}`
    : `${object.kind} ${object.metadata.namespace}/${object.metadata.name}`;
}

/**
 * The runtime environment's spec: Sluice's Kubernetes defaults, builds in the runtime
 * namespace with the engine's ServiceAccount, placed by the build node selector and
 * tolerations, dind volumes of the StorageClass, the install's proxy; `--runtime-spec` merged
 * over it.
 */
export function runtimeSpecFor(
  settings: RunnerSettings,
  options: { inCluster?: boolean; asPatch?: boolean } = {},
): Record<string, unknown> {
  const inCluster = options.inCluster ?? true;
  const { values } = settings;
  const image = { ...RUNTIME_INSTALL_DEFAULTS.image, ...values.agent.image };
  // With the volume provisioner installed, builds claim its class unless told otherwise.
  const storageClass =
    settings.storageClass ??
    (values.volumes?.enabled
      ? volumesStorageClass(values.volumes, values.runtime.namespace)
      : undefined);
  // As a merge patch of the registered runtime (`asPatch`), a placement cleared is removed.
  const cleared = options.asPatch === true ? null : undefined;
  const placement = Object.keys(settings.buildNodeSelector).length
    ? { nodeSelector: settings.buildNodeSelector }
    : cleared === null
      ? { nodeSelector: cleared }
      : {};
  const tolerations = settings.buildTolerations.length
    ? { tolerations: settings.buildTolerations }
    : cleared === null
      ? { tolerations: cleared }
      : {};
  const { registryMirrors, insecureRegistries } = settings.dind;
  const dindImage = settings.dind.image ?? dindImageBeside(image);
  const daemonConfig = {
    ...(registryMirrors.length ? { registryMirrors } : {}),
    ...(insecureRegistries.length ? { insecureRegistries } : {}),
  };
  // The agent's proxy is the builds' too: the engine, the Docker daemon and the steps.
  const proxyFields = Object.entries(values.proxy ?? {}).filter(([, value]) => value);
  const spec = {
    metadata: { name: values.runtime.name },
    extends: ['system/default/k8s'],
    controlPlaneUrl: values.controlPlane.url,
    ...(proxyFields.length > 0 ? { proxy: Object.fromEntries(proxyFields) } : {}),
    runtimeScheduler: {
      image: `${image.repository}:${image.tag}`,
      cluster: {
        namespace: values.runtime.namespace,
        inCluster,
        serviceAccount:
          values.runtime.engineServiceAccount?.name ||
          RUNTIME_INSTALL_DEFAULTS.engineServiceAccount,
        ...placement,
      },
      ...tolerations,
    },
    dockerDaemonScheduler: {
      ...(dindImage === undefined ? {} : { dindImage }),
      ...(Object.keys(daemonConfig).length ? { daemonConfig } : {}),
      cluster: { namespace: values.runtime.namespace, inCluster, ...placement },
      ...tolerations,
      ...(storageClass === undefined ? {} : { pvcs: { dind: { storageClassName: storageClass } } }),
    },
  };
  return deepMerge<Record<string, unknown>>(spec, settings.runtimeSpecPatch);
}

/**
 * The dind image from the same registry and tag as the agent's engine image, as
 * images/build-cluster-images.sh makes and `--registry` tags them: `REGISTRY/sluice/engine:1`
 * gives `REGISTRY/sluice/dind:1`. An engine image named otherwise leaves the runtime's default.
 */
export function dindImageBeside(engine: { repository: string; tag: string }): string | undefined {
  const match = /^(.*\/)?engine$/.exec(engine.repository);
  return match === null ? undefined : `${match[1] ?? ''}dind:${engine.tag}`;
}

/** The chart's values for the same install; the token is the caller's to add. */
export function helmValues(settings: RunnerSettings, token: string): Record<string, unknown> {
  return { ...settings.values, agent: { ...settings.values.agent, token } };
}
