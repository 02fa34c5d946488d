export { startAgent } from './agent.js';
export type { BackendFactory, RunningAgent, StartAgentOptions } from './agent.js';
export { createBackend } from './backends/create-backend.js';
export { createLocalBackend } from './backends/create-backend.js';
export type { LocalBackendOptions } from './backends/local/local-backend.js';
export { parseRunnerConfig, RUNNER_ENV } from './config.js';
export type { RunnerConfigInput } from './config.js';
export { RUNNER_DEFAULTS } from './runner-config.js';
export type {
  KubeSource,
  KubernetesTarget,
  LocalTarget,
  RunnerConfig,
  RuntimeTarget,
} from './runner-config.js';
export { TaskFailure } from './runtime-backend.js';
export type { BuildObjectRef, RuntimeBackend } from './runtime-backend.js';
