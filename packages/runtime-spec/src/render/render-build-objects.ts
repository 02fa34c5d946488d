/**
 * Everything the runner agent creates for one build on a Kubernetes runtime, rendered purely
 * from the resolved runtime spec: the dind PVC, the build Secret, the daemon.json ConfigMap, and
 * the dind and engine pods. Every object carries the build's common labels, so the agent can list
 * and delete what it made with `sluice.io/build-id=<id>`.
 *
 * Spec fields not rendered into a pod, on purpose: `type` (chooses this renderer),
 * `cluster.inCluster` and `cluster.kubeContext` (how the agent connects), `metadata`,
 * `description`, `extends`, `version`, `buildLogLimit` (the control plane gives it to the
 * engine with its build). `workflowLimits`, `userAccess` and `userVolumeMounts`
 * reach the engine as SLUICE_* variables; `reuseVolumeSelector` and `reuseVolumeSortOrder` are
 * PVC annotations for the volume provisioner.
 * @module
 */
import { isQuantity } from '../schema/kube-quantity.js';
import { invalidRuntimeSpecError, RUNTIME_SPEC_ISSUE_CODES } from '../runtime-spec-issue.js';
import type { RuntimeSpecIssue } from '../runtime-spec-issue.js';
import type { RuntimeSpec } from '../schema/runtime-spec-schema.js';
import { VOLUME_LABELS } from '../system-runtimes.js';
import {
  BUILD_LABELS,
  BUILD_SECRET_KEYS,
  CLUSTER_CREDENTIALS,
  commonLabels,
  componentLabels,
  dindHostName,
} from './build-context.js';
import type { BuildContext, BuildNames, BuildRenderInput } from './build-context.js';
import { labelValue } from '@sluice/labels';
import { buildObjectName } from './build-names.js';
import { daemonJson, renderDindPod } from './dind-pod.js';
import { renderEnginePod } from './engine-pod.js';
import type { KubeObject } from './pod-common.js';
import { CACHE_ANNOTATIONS, REUSE_ANNOTATIONS } from '@sluice/labels';

export interface BuildObjects {
  pvc: KubeObject;
  secret: KubeObject;
  /** The spec of the agent's `CreateClusterCredentials` task; none without such clusters. */
  clusterCredentials: Record<string, unknown> | undefined;
  configMap: KubeObject;
  dindPod: KubeObject;
  enginePod: KubeObject;
}

/**
 * The runtime's name as it is on the claim (the `sluice.io/runtime` label can only hold it
 * cleaned and hashed); the volume provisioner carries it to the volume for `sluice get volumes`.
 */
export const RUNTIME_NAME_ANNOTATION = 'sluice.io/runtime-name';

export { CACHE_ANNOTATIONS, REUSE_ANNOTATIONS };

export function buildNames(spec: RuntimeSpec, buildId: string): BuildNames {
  const pvcPrefix = spec.dockerDaemonScheduler?.pvcs?.dind?.name ?? 'dind';
  return {
    dindPod: buildObjectName('dind', buildId),
    enginePod: buildObjectName('engine', buildId),
    pvc: buildObjectName(`pvc-${pvcPrefix}`, buildId),
    secret: buildObjectName('sluice-engine', buildId),
    configMap: buildObjectName('dind-config', buildId),
    clusterSecret: buildObjectName('sluice-clusters', buildId),
  };
}

/** The labels a build's PVC carries, for `reuseVolumeSelector` to name. */
export function volumeLabels(build: BuildRenderInput): Record<string, string> {
  return {
    ...commonLabels(build),
    [VOLUME_LABELS.app]: 'dind',
    [BUILD_LABELS.account]: labelValue(build.accountId),
    [VOLUME_LABELS.project]: labelValue(build.projectId),
    [VOLUME_LABELS.pipeline]: labelValue(build.pipelineId),
    [VOLUME_LABELS.branch]: labelValue(build.branch ?? ''),
    [VOLUME_LABELS.trigger]: labelValue(build.trigger ?? ''),
  };
}

/** @throws InputError `SLUICE_RUNTIME_SPEC_INVALID` when the spec cannot make build pods. */
export function renderBuildObjects(spec: RuntimeSpec, build: BuildRenderInput): BuildObjects {
  const issues = renderIssues(spec, build);
  const engine = spec.runtimeScheduler;
  const dind = spec.dockerDaemonScheduler;
  const namespace = engine?.cluster?.namespace;
  if (issues.length > 0 || engine === undefined || dind === undefined || namespace === undefined) {
    throw invalidRuntimeSpecError(spec.metadata.name, issues);
  }
  const names = buildNames(spec, build.buildId);
  const context: BuildContext = {
    spec,
    build,
    names,
    namespace,
    labels: commonLabels(build),
    dindHost: dindHostName(names.dindPod, namespace),
  };
  return {
    pvc: renderPvc(context),
    secret: renderSecret(context),
    clusterCredentials: renderClusterCredentials(context),
    configMap: renderConfigMap(context),
    dindPod: renderDindPod(context, dind),
    enginePod: renderEnginePod(context, engine),
  };
}

function metadata(context: BuildContext, name: string, component: 'engine' | 'dind') {
  return { name, namespace: context.namespace, labels: componentLabels(context, component) };
}

function renderPvc(context: BuildContext): KubeObject {
  const pvc = context.spec.dockerDaemonScheduler?.pvcs?.dind;
  const reuse = {
    [REUSE_ANNOTATIONS.selector]: pvc?.reuseVolumeSelector,
    [REUSE_ANNOTATIONS.sortOrder]: pvc?.reuseVolumeSortOrder,
    [RUNTIME_NAME_ANNOTATION]: context.build.runtimeName,
  };
  const annotations = Object.fromEntries(
    Object.entries({ ...pvc?.annotations, ...reuse }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  const base = metadata(context, context.names.pvc, 'dind');
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      ...base,
      labels: { ...volumeLabels(context.build), ...base.labels },
      annotations,
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      ...(pvc?.storageClassName === undefined ? {} : { storageClassName: pvc.storageClassName }),
      resources: { requests: { storage: context.build.volumeSize ?? pvc?.volumeSize } },
    },
  };
}

function renderSecret(context: BuildContext): KubeObject {
  const { tls, engineToken } = context.build;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata(context, context.names.secret, 'engine'),
    type: 'Opaque',
    stringData: {
      [BUILD_SECRET_KEYS.engineToken]: engineToken,
      [BUILD_SECRET_KEYS.ca]: tls.caPem,
      [BUILD_SECRET_KEYS.clientCert]: tls.clientCertPem,
      [BUILD_SECRET_KEYS.clientKey]: tls.clientKeyPem,
      [BUILD_SECRET_KEYS.serverCert]: tls.dindCertPem,
      [BUILD_SECRET_KEYS.serverKey]: tls.dindKeyPem,
    },
  };
}

/** A day: a token bound to the build Secret stops working when the build's objects go anyway. */
const CLUSTER_TOKEN_SECONDS = 86_400;

function renderClusterCredentials(context: BuildContext): Record<string, unknown> | undefined {
  const clusters = context.build.clusters ?? [];
  if (clusters.length === 0) return undefined;
  return {
    metadata: metadata(context, context.names.clusterSecret, 'engine'),
    boundSecret: context.names.secret,
    key: CLUSTER_CREDENTIALS.key,
    expirationSeconds: CLUSTER_TOKEN_SECONDS,
    clusters,
  };
}

function renderConfigMap(context: BuildContext): KubeObject {
  const dind = context.spec.dockerDaemonScheduler ?? {};
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(context, context.names.configMap, 'dind'),
    data: { 'daemon.json': `${JSON.stringify(daemonJson(dind), null, 2)}\n` },
  };
}

/** Records an issue: a missing field (`incomplete`) or a value this renderer cannot use. */
type AddIssue = (path: RuntimeSpecIssue['path'], message: string, missing?: boolean) => void;

/** What a resolved spec and the build input must have for this renderer, beyond validation. */
function renderIssues(spec: RuntimeSpec, build: BuildRenderInput): RuntimeSpecIssue[] {
  const issues: RuntimeSpecIssue[] = [];
  const add: AddIssue = (path, message, missing = false) => {
    const code = missing
      ? RUNTIME_SPEC_ISSUE_CODES.incomplete
      : RUNTIME_SPEC_ISSUE_CODES.invalidValue;
    issues.push({ path, code, message });
  };
  const engine = spec.runtimeScheduler;
  const dind = spec.dockerDaemonScheduler;
  if (engine?.type !== 'KubernetesPod') {
    add(['runtimeScheduler', 'type'], `Engine type ${String(engine?.type)} is not KubernetesPod`);
  }
  if (dind?.type === undefined || dind.type === 'LocalDocker') {
    add(
      ['dockerDaemonScheduler', 'type'],
      `Docker daemon type ${String(dind?.type)} is not a dind pod`,
    );
  }
  if (engine?.image === undefined) add(['runtimeScheduler', 'image'], 'No engine image', true);
  if (dind?.dindImage === undefined)
    add(['dockerDaemonScheduler', 'dindImage'], 'No dind image', true);
  const namespace = engine?.cluster?.namespace;
  if (namespace === undefined)
    add(['runtimeScheduler', 'cluster', 'namespace'], 'No namespace', true);
  const dindNamespace = dind?.cluster?.namespace;
  if (dindNamespace !== undefined && dindNamespace !== namespace) {
    // The pods share the build Secret, and a pod can mount only Secrets of its own namespace.
    const message = `dind namespace "${dindNamespace}" differs from the engine namespace "${String(namespace)}"; a build runs in one namespace`;
    add(['dockerDaemonScheduler', 'cluster', 'namespace'], message);
  }
  volumeIssues(spec, build, add);
  return issues;
}

function volumeIssues(spec: RuntimeSpec, build: BuildRenderInput, add: AddIssue): void {
  const pvc = spec.dockerDaemonScheduler?.pvcs?.dind;
  const path = ['dockerDaemonScheduler', 'pvcs', 'dind'];
  const size = build.volumeSize ?? pvc?.volumeSize;
  if (size === undefined) add([...path, 'volumeSize'], 'No Docker volume size', true);
  else if (!isQuantity(size)) {
    const message = `Pipeline volume size "${size}" is not a Kubernetes quantity such as 30Gi`;
    add([...path, 'volumeSize'], message);
  }
  const known = new Set(Object.keys(volumeLabels(build)));
  for (const field of ['reuseVolumeSelector', 'reuseVolumeSortOrder'] as const) {
    const unknown = (pvc?.[field] ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== '' && !known.has(k));
    if (unknown.length === 0) continue;
    const message = `Label ${unknown.map((k) => `"${k}"`).join(', ')} of "${field}" is not one Sluice puts on volumes (${[...known].join(', ')})`;
    add([...path, field], message);
  }
}
