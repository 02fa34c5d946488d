/**
 * The runner agent's process, `sluice agent` (composed by the CLI: `@sluice/runner/main`, which
 * parses its flags and gives the command that starts a local runtime's engines). Every field of
 * its configuration is a flag and an environment variable (`RUNNER_ENV`); an invalid
 * configuration lists every problem before anything starts. Runs until SIGINT/SIGTERM, then
 * stops taking tasks, drains and exits 0 (engines keep running; a restarted agent finds them
 * again). `startEmbeddedAgent` is the agent of `sluice up`.
 * @module
 */
import type { Logger } from '@sluice/log';
import { createLogger } from '@sluice/log';
import { waitForStopSignal } from '@sluice/process';
import { startAgent } from './agent.js';
import type { BackendFactory, RunningAgent } from './agent.js';
import { createBackend, createLocalBackend } from './backends/create-backend.js';
import { parseRunnerConfig } from './config.js';
import type { RunnerConfigInput } from './config.js';

export { RUNNER_DEFAULTS } from './runner-config.js';
export { RUNNER_ENV } from './config.js';
export type { RunnerConfigInput } from './config.js';
export type { RunningAgent } from './agent.js';

export interface AgentMainOptions {
  /** Where the agent says it stopped: the CLI's terminal. */
  output: { err(text: string): void };
  /** The flags given, and the command that starts an engine (`sluice engine`). */
  flags: RunnerConfigInput;
  /** Reported with each heartbeat. */
  version: string;
}

/** Runs the agent until SIGINT or SIGTERM; the exit code. */
export async function agentMain(options: AgentMainOptions): Promise<number> {
  const config = parseRunnerConfig(options.flags, process.env);
  const logger = createLogger({ level: 'info' });
  const agent = await startAgent(config, {
    logger,
    version: options.version,
    createBackend,
    env: process.env,
  });
  const signal = await waitUntilStopped(agent);
  options.output.err(`Agent stopped (${signal})`);
  return 0;
}

/**
 * Waits for SIGINT/SIGTERM, then stops the agent (it drains). An agent that fails to start
 * is stopped too, and its error is thrown.
 */
async function waitUntilStopped(agent: RunningAgent): Promise<NodeJS.Signals> {
  try {
    return await waitForStopSignal(process.env, agent.ready);
  } finally {
    await agent.stop();
  }
}

export interface EmbeddedAgentOptions {
  serverUrl: string;
  token: string;
  /** The local runtime it serves. */
  runtime: string;
  stateDir: string;
  engineCommand: string[];
  logger: Logger;
  version: string;
}

/**
 * The agent of `sluice up`: one local runtime, no HTTP port, DOCKER_HOST and
 * SLUICE_STANDBY_ENGINES the only variables it takes, and engines stopped when it stops.
 */
export function startEmbeddedAgent(options: EmbeddedAgentOptions): Promise<RunningAgent> {
  const config = parseRunnerConfig(
    {
      serverUrl: options.serverUrl,
      token: options.token,
      localRuntime: options.runtime,
      stateDir: options.stateDir,
      engineCommand: options.engineCommand,
      httpPort: '-1',
    },
    {
      DOCKER_HOST: process.env.DOCKER_HOST,
      SLUICE_STANDBY_ENGINES: process.env.SLUICE_STANDBY_ENGINES,
    },
  );
  return startAgent(config, {
    logger: options.logger,
    version: options.version,
    createBackend: stopEnginesOnClose,
    env: process.env,
  });
}

/** The default backends, except that a local one stops its engines when the agent stops. */
const stopEnginesOnClose: BackendFactory = (target, context) =>
  target.kind === 'local'
    ? createLocalBackend(target, {
        logger: context.logger.child({ runtime: target.name }),
        stopEnginesOnClose: true,
        env: context.env,
      })
    : createBackend(target, context);
