/**
 * `sluice engine`'s configuration from the environment, through the schemas of
 * `@sluice/config` (`engineEnv`, with the Docker variables and the git image every entry point
 * shares): read once when the engine starts, validated, frozen. With main.ts, the engine's only
 * reader of process.env.
 * @module
 */
import { CLI_DEFAULTS, cliEnv, configError, dockerEnv, engineEnv, parseEnv } from '@sluice/config';
import type { Env, EngineEnv } from '@sluice/config';
import type { DockerSettings } from '@sluice/docker/endpoint';
import { isStandbyEngine } from '@sluice/protocol';
import type { CleanerSettings } from './cleaner/cleaner-settings.js';
import { proxyVariables } from './base/step-settings.js';

export interface EngineConfig {
  /** SLUICE_SERVER_URL: the control plane `sluice engine` reports to. */
  serverUrl: string;
  /** SLUICE_ENGINE_TOKEN: the engine token of one build. Never printed. */
  token: string;
  /** How long `sluice engine` waits for its Docker daemon to answer (SLUICE_DOCKER_WAIT_SECONDS). */
  dockerWaitSeconds: number;
  /** SLUICE_LOG_SPOOL_DIR: where `sluice engine` spools log lines (`./sluice-log-spool`). */
  logSpoolDir: string;
  /** The spool directory serves one build at a time: other builds' spools there are removed. */
  logSpoolOneBuild: boolean;
  /** SLUICE_LOG_DRAIN_SECONDS: how long the end of a build waits for its log to be stored. */
  logDrainSeconds: number;
  /** The in-dind cleaner's settings when CLEAN_DOCKER is on (docs/cleaners.md). */
  cleaner: CleanerSettings | undefined;
  /** SLUICE_CLUSTER_CREDENTIALS: the agent's tokens for clusters behind the firewall (JSON). */
  clusterCredentials: string | undefined;
  /** SLUICE_ENGINE_DOCKER_OWNER: the `io.sluice.owner` label of the build's Docker objects. */
  dockerOwner: string | undefined;
  /** DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH: the build's Docker daemon. */
  docker: DockerSettings;
  /** SLUICE_GIT_IMAGE: the image git-clone steps run in. */
  gitImage: string | undefined;
  /** HTTP_PROXY / HTTPS_PROXY / NO_PROXY: the control plane's connection, and steps that opt in. */
  proxy: Record<string, string>;
  /** The variables every step's settings come from: the proxy's and SLUICE_USER_*. */
  stepEnv: Record<string, string>;
}

/**
 * The variables the engine shares with the CLI's local commands. A refused one is left unset
 * rather than refused here: `sluice engine` has always run with the Docker defaults then.
 */
const SHARED_ENV = { ...dockerEnv, SLUICE_GIT_IMAGE: cliEnv.SLUICE_GIT_IMAGE };

/**
 * `sluice engine`'s settings, read when the engine starts.
 * @throws InputError `SLUICE_ENGINE_CONFIG_INVALID` listing every problem.
 */
export function loadEngineConfig(env: Env = process.env): Readonly<EngineConfig> {
  const { values: v, problems } = parseEnv(engineEnv, env);
  if (problems.length > 0)
    throw configError(problems, {
      code: 'SLUICE_ENGINE_CONFIG_INVALID',
      whose: "the engine's",
      hint: 'The runner agent sets SLUICE_SERVER_URL and SLUICE_ENGINE_TOKEN for the engine',
    });
  const shared = parseEnv(SHARED_ENV, env).values;
  const proxy = proxyVariables(env);
  return Object.freeze({
    serverUrl: v.SLUICE_SERVER_URL,
    token: v.SLUICE_ENGINE_TOKEN,
    dockerWaitSeconds: v.SLUICE_DOCKER_WAIT_SECONDS,
    logSpoolDir: v.SLUICE_LOG_SPOOL_DIR,
    logSpoolOneBuild: v.SLUICE_LOG_SPOOL_ONE_BUILD,
    logDrainSeconds: v.SLUICE_LOG_DRAIN_SECONDS,
    cleaner: cleanerSettings(v),
    clusterCredentials: v.SLUICE_CLUSTER_CREDENTIALS,
    dockerOwner: v.SLUICE_ENGINE_DOCKER_OWNER,
    docker: engineDockerSettings(env),
    gitImage: shared.SLUICE_GIT_IMAGE,
    proxy,
    stepEnv: { ...proxy, ...userVariables(env) },
  });
}

/** The Docker daemon's settings alone: what a standby engine warms up with, before its build. */
export function engineDockerSettings(env: Env = process.env): DockerSettings {
  const v = parseEnv(dockerEnv, env).values;
  return {
    host: v.DOCKER_HOST ?? CLI_DEFAULTS.dockerHost,
    tlsVerify: v.DOCKER_TLS_VERIFY,
    certPath: v.DOCKER_CERT_PATH,
  };
}

/** The proxy variables alone (a standby loads the proxy's client before its build). */
export function engineProxy(env: Env = process.env): Record<string, string> {
  return proxyVariables(env);
}

/** SLUICE_USER_ENV_*, SLUICE_USER_SECRET_ENV_*, SLUICE_USER_VOLUME_MOUNTS: for every step. */
function userVariables(env: Env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith('SLUICE_USER_') && entry[1] !== undefined,
    ),
  );
}

/**
 * Whether this engine was started as a standby of the local runtime: its agent gave it a slot
 * (`SLUICE_ENGINE_SLOT`, @sluice/protocol's engine-standby.ts) and waits to hand it a build.
 * Not a setting: the agent sets it, nobody else.
 */
export function startedAsStandby(env: Env = process.env): boolean {
  return isStandbyEngine(env);
}

/**
 * Variables handed to a standby engine by its agent, set in this process's environment before
 * the configuration is read, as if the engine had been started with them.
 */
export function adoptEngineEnvironment(
  vars: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): void {
  Object.assign(env, vars);
}

function cleanerSettings(v: EngineEnv): CleanerSettings | undefined {
  if (!v.CLEAN_DOCKER) return undefined;
  return {
    cleanPeriodSeconds: v.CLEAN_PERIOD_SECONDS,
    cleanPeriodBuilds: v.CLEAN_PERIOD_BUILDS,
    imageRetainSeconds: v.IMAGE_RETAIN_PERIOD,
    volumeRetainSeconds: v.VOLUMES_RETAIN_PERIOD,
    diskUsageThreshold: v.DISK_USAGE_THRESHOLD,
    inodeUsageThreshold: v.INODES_USAGE_THRESHOLD,
    background: !v.DISABLE_CLEANER_AGENT,
  };
}

/** Set in a warm-pool pod's engine container (the runner's warm-pool-shape.ts renders them). */
const POOL_ENV = {
  port: 'SLUICE_ENGINE_POOL_PORT',
  keyFile: 'SLUICE_ENGINE_POOL_KEY_FILE',
  tlsCertFile: 'SLUICE_ENGINE_POOL_TLS_CERT_FILE',
  tlsKeyFile: 'SLUICE_ENGINE_POOL_TLS_KEY_FILE',
} as const;

export interface PoolEngineSettings {
  port: number;
  keyFile: string;
  /** The handover port's certificate and key (PEM files); plain HTTP without them. */
  tls?: { certFile: string; keyFile: string };
}

/** The handover port and key file when this engine runs in a warm-pool pod; else undefined. */
export function poolEngineSettings(env: Env = process.env): PoolEngineSettings | undefined {
  const port = Number(env[POOL_ENV.port]);
  const keyFile = env[POOL_ENV.keyFile];
  if (!Number.isInteger(port) || port <= 0 || keyFile === undefined || keyFile === '')
    return undefined;
  const certFile = env[POOL_ENV.tlsCertFile];
  const tlsKeyFile = env[POOL_ENV.tlsKeyFile];
  const tls = certFile && tlsKeyFile ? { certFile, keyFile: tlsKeyFile } : undefined;
  return { port, keyFile, ...(tls === undefined ? {} : { tls }) };
}
