export { route, fillPath } from './route.js';
export {
  ROLES,
  TOKEN_SCOPES,
  effectiveRole,
  roleAtLeast,
  roleOfScope,
  scopeOfRole,
} from './access.js';
export type { RouteDef, RouteScope, HttpMethod } from './route.js';
export { routes } from './routes.js';
export type { Routes, RouteName } from './routes.js';
export { createClient } from './client.js';
export type { SluiceClient, ClientOptions, CallInput, CallOutput } from './client.js';
export { buildOpenApiDocument } from './openapi.js';
export { describeDeleted, formatBytes } from './describe.js';
export * from './schemas/common.js';
export * from './schemas/limits.js';
export * from './schemas/identity.js';
export * from './schemas/sessions.js';
export * from './schemas/auth.js';
export * from './schemas/projects.js';
export * from './schemas/builds.js';
export * from './schemas/agent-health.js';
export * from './schemas/lifecycle.js';
export * from './schemas/agents.js';
export * from './schemas/engine.js';
export * from './schemas/annotations.js';
export * from './schemas/triggers.js';
export * from './schemas/settings.js';
export * from './schemas/git-integrations.js';
export * from './schemas/clusters.js';
export * from './schemas/health.js';
export {
  ENGINE_SLOT_VARIABLE,
  STANDBY_READY,
  handedOverEnv,
  isStandbyEngine,
  isStandbyReady,
  standbyBuildMessage,
} from './engine-standby.js';
export type { StandbyBuildMessage, StandbyReadyMessage } from './engine-standby.js';
