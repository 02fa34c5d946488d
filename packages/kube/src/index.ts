/**
 * `@sluice/kube`: the one owner of the Kubernetes API. Build objects (five core/v1 kinds) are
 * created, deleted and listed through `KubeClient`; failures are classified by
 * `classifyKubeError` into done, retry or fail.
 * @module
 */
export { KubeClient } from './kube-client.js';
export { DEFAULT_KUBE_BURST, DEFAULT_KUBE_QPS } from './kube-settings.js';
export type {
  KubeClientOptions,
  KubeContainerStatus,
  KubePod,
  KubeClaim,
  KubeRawRequest,
  KubeListQuery,
  KubeObjectRef,
  KubeObjectSummary,
  KubeRequestOptions,
  KubeRequestStats,
  KubeServerVersion,
} from './kube-client.js';
export { listKubeContexts } from './kube-config.js';
export type { KubeSource } from './kube-config.js';
export { classifyKubeError } from './kube-errors.js';
export type { KubeClassification, KubeOperation, KubeOutcome, KubeTarget } from './kube-errors.js';
export { checkManifest } from './kube-objects.js';
export type { KubeKind, KubeManifest } from './kube-objects.js';
export { AGENT_PERMISSIONS, formatPermissions } from './kube-permissions.js';
export type { KubePermission } from './kube-permissions.js';
export { proxyUrlFor } from '@sluice/protocol/node';
export type { ProxyEnv } from '@sluice/protocol/node';
export type { Clock } from './token-bucket.js';
export {
  describeResource,
  FIELD_MANAGER,
  KubeResources,
  RESOURCE_KINDS,
  resourcePath,
} from './kube-resources.js';
export { describeChange, objectChanges } from './object-changes.js';
export type { FieldChange } from './object-changes.js';
export { watchChanges } from './kube-watch.js';
export type { WatchChangesOptions, WatchEnd, WatchEvent, WatchQuery } from './kube-watch.js';
export type {
  ApplyOptions,
  ApplyResult,
  KubeResource,
  ResourceKind,
  ResourceRef,
} from './kube-resources.js';
