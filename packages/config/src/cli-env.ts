/**
 * The environment of `sluice run`, `sluice validate` and the management commands, and the
 * Docker variables every entry point that talks to a Docker engine shares.
 * @module
 */
import { presenceVar, textVar, urlVar } from './variables.js';
import type { EnvValues } from './parse-env.js';
import { CLI_DEFAULTS } from './defaults.js';

/** DOCKER_HOST and Docker's TLS variables, read as the docker CLI reads them. */
export const dockerEnv = {
  DOCKER_HOST: textVar({
    description: 'The Docker engine steps run on',
    flag: 'docker-host',
    defaultText: `\`${CLI_DEFAULTS.dockerHost}\``,
  }),
  DOCKER_TLS_VERIFY: presenceVar({
    description: 'TLS to the Docker engine, with the files of `DOCKER_CERT_PATH`',
  }),
  DOCKER_CERT_PATH: textVar({
    description: 'The directory holding `ca.pem`, `cert.pem` and `key.pem` for TLS',
  }),
};

/** Proxy variables: passed to steps; git-clone uses them with `use_proxy: true`. */
export const proxyEnv = {
  HTTP_PROXY: textVar({ description: 'Proxy of http:// requests, passed to steps' }),
  HTTPS_PROXY: textVar({ description: 'Proxy of https:// requests, passed to steps' }),
  NO_PROXY: textVar({ description: 'Hosts reached without the proxy, passed to steps' }),
};

export const cliEnv = {
  ...dockerEnv,
  SLUICE_GIT_IMAGE: textVar({
    description: 'Image of git-clone steps',
    flag: 'git-image',
    defaultText: '`sluice/git:1`',
  }),
  ...proxyEnv,
  NO_COLOR: textVar({
    description: 'Set to anything: no colour',
    defaultText: 'colour on a terminal',
  }),
  FORCE_COLOR: textVar({
    description: 'Set to anything: colour even off a terminal',
    defaultText: 'colour on a terminal',
  }),
  SLUICE_SERVER: urlVar({
    description: 'The server of the commands that talk to a server; wins over the context in use',
    flag: 'server',
  }),
  SLUICE_TOKEN: textVar({
    description:
      'The user token of the commands that talk to a server; wins over the context in use',
    flag: 'token',
    secret: true,
  }),
  SLUICE_CONFIG: textVar({
    description: 'The contexts file of `sluice auth` (server URLs and tokens; written 0600)',
    defaultText: '`$XDG_CONFIG_HOME/sluice/config.yaml`, else `~/.config/sluice/config.yaml`',
  }),
  SLUICE_CONTEXT: textVar({
    description: 'The context to use',
    flag: 'context',
    defaultText: "the file's current context",
  }),
  SLUICE_REGISTRY_USERNAME: textVar({
    description: 'User of the `sluice run --registry` registries',
    flag: 'registry-username',
  }),
  SLUICE_REGISTRY_PASSWORD: textVar({
    description: "Their password (`--registry-password-stdin`); masked in the build's output",
    secret: true,
  }),
  SLUICE_STEP_TYPES: textVar({
    description:
      "Step-type directories, separated like `PATH`, for `run` and `validate` (`--step-types`); searched after the flags and before the repository's `.sluice/step-types/` and the built-in `step-types/`",
  }),
};

export type CliEnv = EnvValues<typeof cliEnv>;
