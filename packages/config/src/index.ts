export { configError, parseEnv, variableLabel } from './parse-env.js';
export type { ConfigErrorOptions, Env, EnvShape, EnvValues, ParsedEnv } from './parse-env.js';
export {
  numberVar,
  presenceVar,
  requiredTextVar,
  switchVar,
  textVar,
  urlVar,
  variableMeta,
} from './variables.js';
export type { Variable, VariableMeta } from './variables.js';
export { serverEnv, serverRules } from './server-env.js';
export type { ServerEnv } from './server-env.js';
export { OIDC_DEFAULTS, oidcEnv, oidcRules } from './oidc-env.js';
export { agentEnv } from './agent-env.js';
export type { AgentEnv } from './agent-env.js';
export { cliEnv, dockerEnv, proxyEnv } from './cli-env.js';
export type { CliEnv } from './cli-env.js';
export { engineEnv } from './engine-env.js';
export type { EngineEnv } from './engine-env.js';
export { CLEANER_DEFAULTS, cleanerEnv } from './cleaner-env.js';
export type { CleanerEnv } from './cleaner-env.js';
export { PROVISIONER_DEFAULTS, provisionerEnv, volumeAgentEnv } from './provisioner-env.js';
export type { ProvisionerEnv, VolumeAgentEnv } from './provisioner-env.js';
export { markdownTable, renderEnvironmentDoc } from './environment-doc.js';
export { AGENT_DEFAULTS, CLI_DEFAULTS, ENGINE_DEFAULTS, SERVER_DEFAULTS } from './defaults.js';
