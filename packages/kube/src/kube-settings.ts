/**
 * What callers need before they need a cluster: the client's default rate limit and the proxy
 * rule. Exported on its own as `@sluice/kube/settings`, because the package's index loads
 * @kubernetes/client-node (about 75 MiB of resident memory) and an agent serving only the local
 * runtime should not pay for it.
 * @module
 */
export const DEFAULT_KUBE_QPS = 50;
export const DEFAULT_KUBE_BURST = 100;
export { proxyUrlFor } from './proxy-env.js';
export type { ProxyEnv } from './proxy-env.js';
