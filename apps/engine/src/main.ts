/**
 * The engine's process: `sluice engine`, the engine of one build, started for the control
 * plane by a runner agent. The CLI composes it (`@sluice/engine/main`): its command and the
 * engine bundle's entry (apps/cli/src/engine-entry.ts) give it their terminal and translate what
 * it throws into an exit code. Reads the server URL and the build's engine token from the
 * environment (never printed; every refused variable is named before anything starts:
 * config.ts), runs the build on a Docker engine and reports it through the engine API. Exit 0
 * only when the build succeeded; SIGINT/SIGTERM stop it cleanly: it ends `error`, reported as
 * stopped from outside (a cancel comes from the control plane, not as a signal).
 *
 * A standby engine of the local runtime (started by its agent with `SLUICE_ENGINE_SLOT` and an
 * IPC channel) first loads and warms up, says `ready`, and waits for its build's environment
 * (`awaitStandbyHandover`; the messages are @sluice/protocol's engine-standby.ts).
 * @module
 */
import { fileURLToPath } from 'node:url';
import { DockerClient } from '@sluice/docker';
import { dockerEndpointFrom } from '@sluice/docker/endpoint';
import { describeError } from '@sluice/errors';
import { createLogger } from '@sluice/log';
import { parsePipeline } from '@sluice/pipeline';
import { handedOverEnv, STANDBY_READY } from '@sluice/protocol';
import { createControlPlaneFetch, preloadControlPlaneFetch } from '@sluice/protocol/node';
import {
  adoptEngineEnvironment,
  engineDockerSettings,
  engineProxy,
  loadEngineConfig,
  poolEngineSettings,
  startedAsStandby,
} from './config.js';
import { awaitPoolHandover } from './pool-handover.js';
import { runRemoteBuild } from './process/remote-build.js';
import { stepSettingsFrom } from './base/step-settings.js';
import { waitForDocker } from './containers/wait-for-docker.js';
import { removeSpare, warmUpDaemon } from './containers/daemon-warm-up.js';
import type { SpareSandbox } from './containers/daemon-warm-up.js';

/**
 * `images/` beside the bundled CLI: in the engine image, the images it loads onto a build's
 * daemon that lacks them (carried-images.ts); from dist/ there is none.
 */
const CARRIED_IMAGES_DIR = fileURLToPath(new URL('./images/', import.meta.url));

/** How long a standby's warm-up may keep it from saying `ready`. */
const WARM_UP_MS = 5_000;

/** What the engine prints for people: the CLI's terminal. */
export interface EngineOutput {
  out(text: string): void;
  err(text: string): void;
  /** An error for people: its message, then what to do. */
  error(message: string, hint?: string): void;
}

export interface EngineMainOptions {
  output: EngineOutput;
  /** `--docker-host`: wins over DOCKER_HOST. */
  dockerHost?: string;
}

/**
 * What a warm-pool pod's daemon warm-up left for the build this engine will run (set before the
 * handover, read once by `engineMain`): one build per engine process.
 */
let spareSandbox: SpareSandbox | undefined;
/** Whether `engineMain` has read `spareSandbox`: a warm-up that ends later removes its spare. */
let spareRead = false;

/** Runs the build of the engine token in the environment; the exit code. */
export async function engineMain(options: EngineMainOptions): Promise<number> {
  const { output } = options;
  const engine = loadEngineConfig();
  const { serverUrl, token } = engine;
  const endpoint = dockerEndpointFrom({
    ...engine.docker,
    host: options.dockerHost ?? engine.docker.host,
  });
  const docker = DockerClient.create(endpoint);
  // Before the wait for the daemon: a stop that comes while dind starts still ends the build
  // `terminated` and reported, rather than killing an engine that never said anything.
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    output.err(`${name} received: stopping the build`);
    controller.abort(name);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // An await that can never settle (a request its HTTP client lost) empties the event loop, and
  // node would end the engine 0 with its build unfinished and nothing said.
  const onStalled = () => {
    output.error(
      'The engine stopped with its build unfinished and nothing left to wait for (an internal error)',
      "The runner agent reports this engine's end and the control plane retries or ends the build; report it with this output",
    );
    process.exitCode = 70;
  };
  process.once('beforeExit', onStalled);
  try {
    await waitForDaemon(output, docker, endpoint.host, {
      seconds: engine.dockerWaitSeconds,
      signal: controller.signal,
    });
    // The engine's calls go through HTTP(S)_PROXY as the agent's do (NO_PROXY, never loopback).
    const connection = createControlPlaneFetch(serverUrl, engine.proxy);
    const result = await runRemoteBuild({
      serverUrl,
      token,
      fetch: connection.fetch,
      stepSettings: stepSettingsFrom(engine.stepEnv),
      docker,
      gitImage: engine.gitImage,
      logger: createLogger({ level: 'info' }),
      signal: controller.signal,
      logSpoolDir: engine.logSpoolDir,
      logSpoolOneBuild: engine.logSpoolOneBuild,
      logDrainTimeoutMs: engine.logDrainSeconds * 1000,
      cleaner: engine.cleaner,
      clusterCredentials: engine.clusterCredentials,
      dockerOwner: engine.dockerOwner,
      carriedImagesDir: CARRIED_IMAGES_DIR,
      spareSandbox: readSpare(),
    });
    await connection.close();
    const reason = result.reason === undefined ? '' : `: ${result.reason}`;
    output.out(`Build ${result.buildId} finished: ${result.result}${reason}`);
    return result.result === 'success' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('beforeExit', onStalled);
  }
}

/** The spare sandbox a warm-up left for this build, once: a later one is not the build's. */
function readSpare(): SpareSandbox | undefined {
  spareRead = true;
  return spareSandbox;
}

/**
 * In a pod the daemon is the build's dind, starting beside the engine. A daemon that never
 * answers is not fatal here: the build then fails on its first Docker call and is reported
 * with that reason, rather than leaving the control plane waiting for an engine that exited.
 */
async function waitForDaemon(
  output: EngineOutput,
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
        output.err(
          `Waiting for the Docker daemon at ${host} (${Math.round(waited / 1000)} s): ${describeError(err)}`,
        );
      },
    });
  } catch (err) {
    output.err(`The Docker daemon at ${host} did not answer: ${describeError(err)}`);
  }
}

/**
 * Resolves true once the engine may run its build: at once when not started as a standby, else
 * when its agent handed it a build's environment (taken into this process's environment, and
 * the channel closed: from then on the engine lives on its own, like one started detached).
 * False when the channel closed first: the agent retired the standby, or died, and nothing
 * runs. The agent hands a build only to a standby that said `ready`, once it listens (a
 * message sent before that would be lost) and its warm-up is done.
 */
export async function awaitStandbyHandover(): Promise<boolean> {
  // A Kubernetes warm-pool pod's engine: its build comes over the network, not a channel.
  const pool = poolEngineSettings();
  if (pool !== undefined) {
    const daemon = async (docker: DockerClient) => {
      const spare = await warmUpDaemon(docker, {
        carriedImagesDir: CARRIED_IMAGES_DIR,
        log: createLogger({ level: 'info' }),
      });
      // Past the handover's bound, the build started without it: nothing would remove it.
      if (spare !== undefined && spareRead) await removeSpare(docker, spare).catch(() => undefined);
      else spareSandbox = spare;
    };
    return awaitPoolHandover(pool, { engine: warmUpEngine, daemon }).then(() => true);
  }
  if (!startedAsStandby()) return true;
  if (process.channel === undefined || process.send === undefined) return false;
  const send = process.send.bind(process);
  const handover = new Promise<boolean>((resolve) => {
    const onMessage = (message: unknown) => {
      process.off('disconnect', onDisconnect);
      adoptEngineEnvironment(handedOverEnv(message));
      process.disconnect();
      resolve(true);
    };
    const onDisconnect = () => {
      process.off('message', onMessage);
      resolve(false);
    };
    process.once('message', onMessage);
    process.once('disconnect', onDisconnect);
  });
  // A warm-up that hangs (a Docker engine that does not answer) does not keep the standby unready.
  await Promise.race([
    warmUpEngine(),
    new Promise((resolve) => setTimeout(resolve, WARM_UP_MS).unref()),
  ]);
  if (process.connected) send(STANDBY_READY);
  return handover;
}

const WARM_UP_PIPELINE = `version: "1.0"
steps:
  warm-up:
    image: sluice/busybox:1
    commands: ["true"]
`;

/**
 * What a standby engine runs while it waits for its build: the first use of what every build's
 * engine uses first — its configuration's schemas, the Docker client's first request, the
 * pipeline parser, undici when a proxy is set (the control plane's fetch through it) — so that
 * V8 has compiled that code and those modules are initialised when the build comes, instead of
 * the build paying for it cold (bench/local-start). Nothing here is kept for the build, and a
 * failure is no matter: the build then does the same for itself and reports what went wrong.
 */
async function warmUpEngine(): Promise<void> {
  await Promise.allSettled([
    Promise.resolve().then(() => loadEngineConfig()),
    Promise.resolve().then(() => parsePipeline(WARM_UP_PIPELINE, { file: 'warm-up.yml' })),
    Promise.resolve().then(() =>
      DockerClient.create(dockerEndpointFrom(engineDockerSettings())).ping(),
    ),
    Promise.resolve().then(() => preloadControlPlaneFetch(engineProxy())),
  ]);
}
