/**
 * What the local runtime needs to run a build, as health checks: the Docker engine the engines
 * use answers (`docker`), and the program of the engine command exists and is executable
 * (`engine-command`). Each failed check says what to do.
 * @module
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { DEFAULT_DOCKER_HOST, loadTlsFiles } from '@sluice/docker/endpoint';
import type { DockerClient } from '@sluice/docker';
import type { DockerEndpoint } from '@sluice/docker/endpoint';
import type { RuntimeHealth } from '@sluice/protocol';
import type { LocalTarget } from '../../runner-config.js';

export type HealthCheck = NonNullable<RuntimeHealth['checks']>[number];

/** The target's Docker host, else DOCKER_HOST, with TLS when DOCKER_TLS_VERIFY asks for it. */
export function localDockerEndpoint(target: LocalTarget, env: NodeJS.ProcessEnv): DockerEndpoint {
  const host = localDockerHost(target, env);
  const verify = env.DOCKER_TLS_VERIFY;
  const certPath = env.DOCKER_CERT_PATH;
  if (verify === undefined || verify === '' || verify === '0' || !certPath) return { host };
  return { host, tls: loadTlsFiles(certPath) };
}

export function localDockerHost(target: LocalTarget, env: NodeJS.ProcessEnv): string {
  return target.dockerHost ?? (env.DOCKER_HOST || DEFAULT_DOCKER_HOST);
}

/** Pings the engine; `docker` makes (or returns) the backend's client, which may throw (TLS files). */
export async function checkDocker(host: string, docker: () => DockerClient): Promise<HealthCheck> {
  try {
    const { version } = await docker().ping();
    return { name: 'docker', ok: true, message: `Docker ${version} answers at ${host}` };
  } catch (err) {
    return {
      name: 'docker',
      ok: false,
      message: `The Docker engine at ${host} does not answer (${err instanceof Error ? err.message : String(err)}): start dockerd, or point --docker-host (DOCKER_HOST) at a running engine`,
    };
  }
}

export function checkEngineCommand(
  command: readonly string[],
  env: NodeJS.ProcessEnv,
): HealthCheck {
  const program = command[0];
  if (program === undefined || program === '')
    return {
      name: 'engine-command',
      ok: false,
      message: 'The engine command is empty: the agent was started without one',
    };
  const found = findExecutable(program, env.PATH ?? '');
  if (found !== undefined)
    return { name: 'engine-command', ok: true, message: `Engines run with ${found}` };
  return {
    name: 'engine-command',
    ok: false,
    message: `The engine command's program "${program}" is not an executable file${program.includes('/') ? '' : ' on PATH'}: reinstall sluice, or start the agent with the sluice binary`,
  };
}

/** The path of `program` (as given if it has a slash, else searched on PATH), if executable. */
function findExecutable(program: string, path: string): string | undefined {
  const candidates = program.includes('/')
    ? [program]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, program));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}
