/**
 * What callers need before they need a cluster: the client's default rate limit and the proxy
 * rule. Exported on its own as `@sluice/kube/settings`, so that an agent serving only the local
 * runtime (and every other command) loads nothing of the Kubernetes client.
 * @module
 */
import { AGENT_DEFAULTS } from '@sluice/config/defaults';

// The agent's variables describe them (SLUICE_KUBE_QPS, SLUICE_KUBE_BURST), so they live there.
export const DEFAULT_KUBE_QPS = AGENT_DEFAULTS.kubeQps;
export const DEFAULT_KUBE_BURST = AGENT_DEFAULTS.kubeBurst;
export { proxyUrlFor } from '@sluice/protocol/node';
export type { ProxyEnv } from '@sluice/protocol/node';
