export { runtimeSpecSchema, runtimeName } from './schema/runtime-spec-schema.js';
export type {
  RuntimeSpec,
  RuntimeSpecInput,
  RuntimeScheduler,
  DockerDaemonScheduler,
} from './schema/runtime-spec-schema.js';
export type { WorkflowLimits } from './schema/engine-scheduler.js';
export { isQuantity, quantityValue } from './schema/kube-quantity.js';
export { isLabelKey } from './schema/kube-names.js';
export { isLabelValue } from '@sluice/labels';
export { validateRuntimeSpec } from './validate-runtime-spec.js';
export type { ValidateRuntimeSpecResult } from './validate-runtime-spec.js';
export { parseRuntimeSpecYaml } from './parse-runtime-spec-yaml.js';
export type { ParseRuntimeSpecYamlResult } from './parse-runtime-spec-yaml.js';
export { resolveRuntimeSpec } from './resolve-runtime-spec.js';
export type { ResolveRuntimeSpecResult, RuntimeSpecLookup } from './resolve-runtime-spec.js';
export { mergePatch, deepMerge } from './merge-patch.js';
export {
  RUNTIME_SPEC_ISSUE_CODES,
  formatRuntimeSpecIssue,
  formatRuntimeSpecPath,
  invalidRuntimeSpecError,
} from './runtime-spec-issue.js';
export type {
  RuntimeSpecIssue,
  RuntimeSpecYamlIssue,
  RuntimeSpecIssueCode,
  RuntimeSpecPath,
} from './runtime-spec-issue.js';
export {
  IMAGE_TAG,
  SYSTEM_RUNTIME_NAMES,
  VOLUME_LABELS,
  DEFAULT_INFRASTRUCTURE_RETRIES,
  DEFAULT_WORKFLOW_LIMITS,
  isSystemRuntimeName,
  systemRuntimeSpec,
  systemRuntimeSpecs,
} from './system-runtimes.js';
export {
  renderBuildObjects,
  buildNames,
  volumeLabels,
  REUSE_ANNOTATIONS,
  RUNTIME_NAME_ANNOTATION,
  CACHE_ANNOTATIONS,
} from './render/render-build-objects.js';
export type { BuildObjects } from './render/render-build-objects.js';
export {
  BUILD_LABELS,
  BUILD_SECRET_KEYS,
  CLUSTER_CREDENTIALS,
  DIND_PORT,
  DIND_SERVICE_NAME,
  dindHostName,
} from './render/build-context.js';
export type {
  BuildRenderInput,
  BuildTls,
  BuildNames,
  InClusterClusterInput,
} from './render/build-context.js';
export { buildObjectName } from './render/build-names.js';
export { labelValue } from '@sluice/labels';
export { renderDindService, daemonJson } from './render/dind-pod.js';
export {
  DOCKER_CLIENT_CERT_DIR,
  USER_ENV_PREFIX,
  USER_SECRET_ENV_PREFIX,
} from './render/engine-pod.js';
export { renderLocalEngineEnv } from './render/local-engine-env.js';
export type { KubeObject, KubeMetadata } from './render/pod-common.js';
export {
  AGENT_ROLE_RULES,
  attachedWarmPool,
  INSTALL_NAMESPACE_LABEL,
  installSelector,
  renderRuntimeInstall,
  RUNTIME_INSTALL_DEFAULTS,
  RUNTIMES_DIR,
} from './install/runtime-install.js';
export type {
  InstallObject,
  RuntimeInstallOptions,
  RuntimeInstallValues,
} from './install/runtime-install.js';
export {
  renderProvisionerInstall,
  VOLUMES_DEFAULTS,
  volumesProvisionerName,
  volumesStorageClass,
} from './install/provisioner-install.js';
export type { VolumesValues } from './install/provisioner-install.js';
export { checkInstallValues, CHECKED_KEYWORDS } from './install/check-values.js';
export type { ValuesIssue } from './install/check-values.js';
export { RUNTIME_VALUES_SCHEMA } from './install/values-schema.js';
export type { JsonSchema } from './install/values-schema.js';
