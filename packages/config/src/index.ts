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
export { SERVER_DEFAULTS, serverEnv, serverRules } from './server-env.js';
export type { ServerEnv } from './server-env.js';
export { AGENT_DEFAULTS, agentEnv } from './agent-env.js';
export type { AgentEnv } from './agent-env.js';
export { CLI_DEFAULTS, cliEnv, dockerEnv, proxyEnv } from './cli-env.js';
export type { CliEnv } from './cli-env.js';
export { ENGINE_DEFAULTS, engineEnv } from './engine-env.js';
export type { EngineEnv } from './engine-env.js';
export { markdownTable, renderEnvironmentDoc } from './environment-doc.js';
