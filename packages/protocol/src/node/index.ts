/**
 * `@sluice/protocol/node`: the HTTP transport to the control plane, beside the pure contract of
 * `@sluice/protocol` (which stays free of Node built-ins for the web UI). The agent, the engine
 * and the CLI reach the control plane through it: `httpFetch` and `createHttpFetch` on
 * node:http, `createControlPlaneFetch` and `createControlPlaneClient` honouring the proxy
 * variables by `proxyUrlFor`, the same rule the Kubernetes client follows.
 * @module
 */
export { createHttpFetch, httpFetch } from './http-fetch.js';
export type { HttpFetch, HttpFetchOptions } from './http-fetch.js';
export {
  createControlPlaneClient,
  createControlPlaneFetch,
  preloadControlPlaneFetch,
} from './control-plane-fetch.js';
export type {
  ControlPlaneClientOptions,
  ControlPlaneConnection,
  ControlPlaneFetch,
} from './control-plane-fetch.js';
export { proxyUrlFor } from './proxy-env.js';
export type { ProxyEnv } from './proxy-env.js';
