/**
 * What callers need before they need a cluster: the client's default rate limit and the proxy
 * rule. Exported on its own as `@sluice/kube/settings`, so that an agent serving only the local
 * runtime (and every other command) loads nothing of the Kubernetes client.
 * @module
 */
export const DEFAULT_KUBE_QPS = 50;
export const DEFAULT_KUBE_BURST = 100;
export { proxyUrlFor } from './proxy-env.js';
export type { ProxyEnv } from './proxy-env.js';
