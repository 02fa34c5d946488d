/**
 * The CLI's configuration from the environment, through the schemas of `@sluice/config`: read
 * once, validated, frozen. The only module that reads process.env. Flags override these values
 * in the commands.
 * @module
 */
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { CLI_DEFAULTS, cliEnv, configError, parseEnv } from '@sluice/config';
import { InputError } from '@sluice/errors';
import { proxyVariables } from '@sluice/engine/step-settings';
// The endpoint module only: the package's index loads dockerode (about 20 MiB) into every command.
import { dockerEndpointFrom } from '@sluice/docker/endpoint';
import type { DockerEndpoint } from '@sluice/docker/endpoint';
import { readContexts } from './contexts/context-file.js';

export interface CliConfig {
  /** DOCKER_HOST, or the local socket. */
  dockerHost: string;
  /** DOCKER_CERT_PATH, used when DOCKER_TLS_VERIFY is set (or when the host is https). */
  dockerCertPath: string | undefined;
  dockerTlsVerify: boolean;
  /** SLUICE_GIT_IMAGE: the image git-clone steps run in. */
  gitImage: string | undefined;
  /** NO_COLOR / FORCE_COLOR, on top of whether stdout is a terminal. */
  color: boolean;
  /** HTTP_PROXY / HTTPS_PROXY / NO_PROXY, passed to steps that opt in with use_proxy. */
  proxy: Record<string, string>;
  /** SLUICE_USER_ENV_*, SLUICE_USER_SECRET_ENV_*, SLUICE_USER_VOLUME_MOUNTS: for every step. */
  userEnv: Record<string, string>;
  /** SLUICE_SERVER: the control plane the management commands talk to. */
  server: string | undefined;
  /** SLUICE_TOKEN: a user token for it. Never printed. */
  token: string | undefined;
  /** SLUICE_CONFIG: the contexts file (default $XDG_CONFIG_HOME/sluice/config.yaml, ~/.config/…). */
  contextFile: string;
  /**
   * The contexts file's directory is the CLI's own (the default one, not one SLUICE_CONFIG
   * names): writing a context makes it 0700 even when it already existed.
   */
  contextDirOwned: boolean;
  /** SLUICE_CONTEXT: the context to use instead of the file's current one. */
  context: string | undefined;
  /** The terminal's width for tables (100 when the output is not a terminal). */
  columns: number;
  /** SLUICE_REGISTRY_USERNAME: the user of `sluice run --registry` registries. */
  registryUsername: string | undefined;
  /** SLUICE_REGISTRY_PASSWORD: their password. Never printed; masked in build output. */
  registryPassword: string | undefined;
  /** SLUICE_STEP_TYPES: step-type directories, separated like PATH, searched by run and validate. */
  stepTypeDirs: string[];
  /** Standard input and output are both a terminal: `sluice run` may ask questions. */
  interactive: boolean;
  /**
   * The variables that were refused, each naming itself. The commands that use one of them
   * (those that talk to a server) refuse to start while there are any; the others need none of
   * them, so a bad SLUICE_SERVER does not stop `sluice run`.
   */
  problems: readonly string[];
}

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  isTty = Boolean(process.stdout.isTTY),
  stdinIsTty = Boolean(process.stdin.isTTY),
): Readonly<CliConfig> {
  const { values: v, problems } = parseEnv(cliEnv, env);
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  const proxy = proxyVariables(env);
  return Object.freeze({
    dockerHost: v.DOCKER_HOST ?? CLI_DEFAULTS.dockerHost,
    dockerCertPath: v.DOCKER_CERT_PATH,
    dockerTlsVerify: v.DOCKER_TLS_VERIFY,
    gitImage: v.SLUICE_GIT_IMAGE,
    color: v.NO_COLOR !== undefined ? false : v.FORCE_COLOR !== undefined ? true : isTty,
    proxy,
    userEnv: Object.fromEntries(
      Object.entries(env).filter(
        (entry): entry is [string, string] =>
          entry[0].startsWith('SLUICE_USER_') && entry[1] !== undefined,
      ),
    ),
    server: v.SLUICE_SERVER,
    token: v.SLUICE_TOKEN,
    contextFile: v.SLUICE_CONFIG ?? join(configHome, 'sluice', 'config.yaml'),
    contextDirOwned: v.SLUICE_CONFIG === undefined,
    context: v.SLUICE_CONTEXT,
    columns: isTty ? Math.max(40, process.stdout.columns || 100) : 100,
    registryUsername: v.SLUICE_REGISTRY_USERNAME,
    registryPassword: v.SLUICE_REGISTRY_PASSWORD,
    stepTypeDirs: (v.SLUICE_STEP_TYPES ?? '').split(delimiter).filter((dir) => dir !== ''),
    interactive: isTty && stdinIsTty,
    problems: Object.freeze(problems),
  });
}

/**
 * The process's environment, for what reads variables of its own rather than the CLI's: the
 * Kubernetes client and kubeconfig lookups (KUBECONFIG, HOME, the proxy variables) and the
 * processes `sluice up` starts. Handed out here, so that this module stays the CLI's one reader
 * of process.env (scripts/check-boundaries.mjs).
 */
export function processEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}

/** @throws InputError `SLUICE_CLI_CONFIG_INVALID` listing every variable refused. */
export function assertConfigValid(config: CliConfig): void {
  if (config.problems.length > 0)
    throw configError(config.problems, { code: 'SLUICE_CLI_CONFIG_INVALID', whose: "the CLI's" });
}

/** The Docker endpoint from `--docker-host` (if given) and the environment. */
export function dockerEndpoint(config: CliConfig, flag: string | undefined): DockerEndpoint {
  return dockerEndpointFrom({
    host: flag ?? config.dockerHost,
    tlsVerify: config.dockerTlsVerify,
    certPath: config.dockerCertPath,
  });
}

/** `K=V` pairs from repeated flags; a pair without `=` names the flag that carried it. */
export function parsePairs(flag: string, values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of values) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw new InputError('SLUICE_CLI_BAD_PAIR', `${flag} expects KEY=value, got "${pair}"`, {
        hint: `Write ${flag} NAME=value`,
      });
    }
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/**
 * The control plane and token for management commands. The server is `--server`, else
 * SLUICE_SERVER, else the context's URL (`--context`, SLUICE_CONTEXT, or the file's current
 * one); an explicit `--context` beats the environment. A context's token is only ever sent to
 * that context's own URL.
 */
export function serverContext(
  config: CliConfig,
  flags: { server?: string; token?: string; context?: string },
): ServerTarget {
  assertConfigValid(config);
  const named = flags.context ?? config.context;
  // Flags or the environment that give both leave the contexts file unread (and unparsed).
  const complete =
    named === undefined &&
    (flags.server ?? config.server) !== undefined &&
    (flags.token ?? config.token) !== undefined;
  const contexts = complete ? { current: null, contexts: [] } : readContexts(config.contextFile);
  const ctxName = named ?? contexts.current ?? undefined;
  const ctx = contexts.contexts.find((c) => c.name === ctxName);
  if (named !== undefined && ctx === undefined)
    throw new InputError(
      'SLUICE_CONTEXT_NOT_FOUND',
      `No context "${named}" in ${config.contextFile}`,
      {
        hint: `List them with: sluice auth get-contexts; add it with: sluice auth create-context ${named} --url URL --token-stdin`,
      },
    );
  const explicit = flags.context !== undefined;
  const server = flags.server ?? (explicit ? ctx?.url : undefined) ?? config.server ?? ctx?.url;
  const fromCtx = ctx !== undefined && server === ctx.url;
  const token =
    flags.token ??
    (explicit && fromCtx ? ctx.token : undefined) ??
    config.token ??
    (fromCtx ? ctx.token : undefined);
  if (server === undefined || token === undefined) {
    const missing = [
      server === undefined ? 'the server URL' : '',
      token === undefined ? 'a token' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    throw new InputError(
      'SLUICE_CLI_NO_SERVER',
      `This command talks to a Sluice server, but ${missing} ${server === undefined && token === undefined ? 'are' : 'is'} not set`,
      {
        hint: 'Add a context: sluice auth create-context NAME --url URL --token-stdin; or pass --server URL --token TOKEN, or set SLUICE_SERVER and SLUICE_TOKEN',
      },
    );
  }
  return {
    server,
    token,
    source: {
      context: fromCtx ? ctx.name : undefined,
      server: flags.server !== undefined ? '--server' : fromCtx ? 'context' : 'SLUICE_SERVER',
      token:
        flags.token !== undefined
          ? '--token'
          : fromCtx && (explicit || config.token === undefined)
            ? 'context'
            : 'SLUICE_TOKEN',
    },
  };
}

/** Where a command's server and token came from, so errors can say what to fix. */
export interface ServerSource {
  /** The context whose URL (and maybe token) is used. */
  context: string | undefined;
  server: '--server' | 'SLUICE_SERVER' | 'context';
  token: '--token' | 'SLUICE_TOKEN' | 'context';
}

export interface ServerTarget {
  server: string;
  token: string;
  source: ServerSource;
}
