/**
 * `@sluice/kube`: the one owner of the Kubernetes API. Build objects (five core/v1 kinds) are
 * created, deleted and listed through `KubeClient`; failures are classified by
 * `classifyKubeError` into done, retry or fail.
 * @module
 */
export { KubeClient, DEFAULT_KUBE_BURST, DEFAULT_KUBE_QPS } from './kube-client.js';
export type {
  KubeClientOptions,
  KubeListQuery,
  KubeObjectRef,
  KubeObjectSummary,
  KubeRequestOptions,
  KubeRequestStats,
  KubeServerVersion,
} from './kube-client.js';
export { SERVICE_ACCOUNT_DIR } from './kube-config.js';
export type { KubeSource } from './kube-config.js';
export { classifyKubeError, describeTarget, KUBE_ERROR_CODES } from './kube-errors.js';
export type { KubeClassification, KubeOperation, KubeOutcome, KubeTarget } from './kube-errors.js';
export {
  checkKind,
  checkManifest,
  isKubeKind,
  KUBE_KINDS,
  KUBE_RESOURCES,
} from './kube-objects.js';
export type { KubeKind, KubeManifest } from './kube-objects.js';
export {
  AGENT_PERMISSIONS,
  FORCE_DELETE_PVC_PERMISSION,
  formatPermissions,
} from './kube-permissions.js';
export type { KubePermission } from './kube-permissions.js';
export { proxyUrlFor } from './proxy-env.js';
export type { ProxyEnv } from './proxy-env.js';
export { createTokenBucket, systemClock } from './token-bucket.js';
export type { Clock, TokenBucket, TokenBucketOptions, TokenBucketStats } from './token-bucket.js';
