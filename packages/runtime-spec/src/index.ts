export { runtimeSpecSchema, runtimeName } from './schema/runtime-spec-schema.js';
export type {
  RuntimeSpec,
  RuntimeSpecInput,
  RuntimeScheduler,
  DockerDaemonScheduler,
} from './schema/runtime-spec-schema.js';
export type { WorkflowLimits } from './schema/engine-scheduler.js';
export { isQuantity, quantityValue } from './schema/kube-quantity.js';
export { isLabelKey, isLabelValue } from './schema/kube-names.js';
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
  SLUICE_VERSION,
  SYSTEM_RUNTIME_NAMES,
  VOLUME_LABELS,
  DEFAULT_WORKFLOW_LIMITS,
  isSystemRuntimeName,
  systemRuntimeSpec,
  systemRuntimeSpecs,
} from './system-runtimes.js';
