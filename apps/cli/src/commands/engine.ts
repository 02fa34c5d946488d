/**
 * `sluice engine`: the engine of one build, started for the control plane (by a runner agent).
 * Reads the server URL and the build's engine token from the environment (never printed; every
 * refused variable is named before anything starts: `loadEngineConfig`), runs
 * the build on a Docker engine and reports it through the engine API. Exit 0 only when the build
 * succeeded; SIGINT/SIGTERM stop it cleanly (it ends `terminated` and is reported as such).
 * @module
 */
import { fileURLToPath } from 'node:url';
import { DockerClient } from '@sluice/docker';
import { runRemoteBuild, stepSettingsFrom, waitForDocker } from '@sluice/engine';
import { createControlPlaneFetch } from '@sluice/runner/control-plane-client';
import { describeError } from '@sluice/errors';
import { createLogger } from '@sluice/log';
import { dockerEndpoint, loadEngineConfig } from '../config.js';
import type { CliConfig } from '../config.js';
import { printError } from '../ui/terminal.js';
import type { Terminal } from '../ui/terminal.js';

/**
 * `images/` beside the bundled CLI: in the engine image, the images it loads onto a build's
 * daemon that lacks them (apps/engine/src/carried-images.ts); from dist/ there is none.
 */
const CARRIED_IMAGES_DIR = fileURLToPath(new URL('./images/', import.meta.url));

export interface EngineCommandOptions {
  dockerHost?: string;
}

export async function engineCommand(
  term: Terminal,
  config: CliConfig,
  options: EngineCommandOptions,
): Promise<number> {
  const engine = loadEngineConfig();
  const { serverUrl, token } = engine;
  const endpoint = dockerEndpoint(config, options.dockerHost);
  const docker = DockerClient.create(endpoint);
  // Before the wait for the daemon: a stop that comes while dind starts still ends the build
  // `terminated` and reported, rather than killing an engine that never said anything.
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    term.err(`${name} received: stopping the build`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // An await that can never settle (a request its HTTP client lost) empties the event loop, and
  // node would end the engine 0 with its build unfinished and nothing said.
  const onStalled = () => {
    printError(
      term,
      'The engine stopped with its build unfinished and nothing left to wait for (an internal error)',
      "The runner agent reports this engine's end and the control plane retries or ends the build; report it with this output",
    );
    process.exitCode = 70;
  };
  process.once('beforeExit', onStalled);
  try {
    await waitForDaemon(term, docker, endpoint.host, {
      seconds: engine.dockerWaitSeconds,
      signal: controller.signal,
    });
    // The engine's calls go through HTTP(S)_PROXY as the agent's do (NO_PROXY, never loopback).
    const connection = createControlPlaneFetch(serverUrl, config.proxy);
    const result = await runRemoteBuild({
      serverUrl,
      token,
      fetch: connection.fetch,
      stepSettings: stepSettingsFrom({ ...config.proxy, ...config.userEnv }),
      docker,
      gitImage: config.gitImage,
      logger: createLogger({ level: 'info' }),
      signal: controller.signal,
      logSpoolDir: engine.logSpoolDir,
      logSpoolOneBuild: engine.logSpoolOneBuild,
      logDrainTimeoutMs: engine.logDrainSeconds * 1000,
      cleaner: engine.cleaner,
      clusterCredentials: engine.clusterCredentials,
      carriedImagesDir: CARRIED_IMAGES_DIR,
    });
    await connection.close();
    const reason = result.reason === undefined ? '' : `: ${result.reason}`;
    term.out(`Build ${result.buildId} finished: ${result.result}${reason}`);
    return result.result === 'success' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('beforeExit', onStalled);
  }
}

/**
 * In a pod the daemon is the build's dind, starting beside the engine. A daemon that never
 * answers is not fatal here: the build then fails on its first Docker call and is reported
 * with that reason, rather than leaving the control plane waiting for an engine that exited.
 */
async function waitForDaemon(
  term: Terminal,
  docker: DockerClient,
  host: string,
  options: { seconds: number; signal: AbortSignal },
): Promise<void> {
  let nextReport = 0;
  try {
    await waitForDocker(docker, {
      timeoutMs: options.seconds * 1000,
      signal: options.signal,
      onWait: (err, waited) => {
        if (waited < nextReport) return;
        nextReport = waited + 5000;
        term.err(
          `Waiting for the Docker daemon at ${host} (${Math.round(waited / 1000)} s): ${describeError(err)}`,
        );
      },
    });
  } catch (err) {
    term.err(`The Docker daemon at ${host} did not answer: ${describeError(err)}`);
  }
}
