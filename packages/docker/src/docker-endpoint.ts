/**
 * Where the Docker engine is: `DOCKER_HOST` style addresses (unix socket or tcp, TLS when
 * certificates are given), turned into dockerode options. Parsing is pure; reading the
 * certificate files happens in `loadTlsFiles`.
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_DEFAULTS } from '@sluice/config/defaults';
import { InputError } from '@sluice/errors';

export interface TlsMaterial {
  /** The CA the daemon's certificate must chain to. */
  ca: Buffer | string;
  /**
   * The client certificate and key. `loadTlsFiles` always reads both; without them the client
   * only checks the daemon, and a daemon running with `--tlsverify` refuses it.
   */
  cert?: Buffer | string;
  key?: Buffer | string;
}

export interface DockerEndpoint {
  /** `unix:///var/run/docker.sock`, `tcp://10.0.0.5:1300`, ... */
  host: string;
  tls?: TlsMaterial;
}

export type DockerodeConnection =
  | { socketPath: string }
  | {
      protocol: 'http' | 'https';
      host: string;
      port: number;
      ca?: TlsMaterial['ca'];
      cert?: TlsMaterial['cert'];
      key?: TlsMaterial['key'];
    };

// The docker CLI's default, described with DOCKER_HOST in @sluice/config.
export const DEFAULT_DOCKER_HOST = CLI_DEFAULTS.dockerHost;

export function toDockerodeOptions(endpoint: DockerEndpoint): DockerodeConnection {
  const { host, tls } = endpoint;
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  if (host.startsWith('/')) return { socketPath: host };
  const match = /^(tcp|https?):\/\/\[?([^\]/]+?)\]?(?::(\d+))?\/?$/.exec(host);
  if (match === null) {
    throw new InputError(
      'SLUICE_DOCKER_HOST_INVALID',
      `Docker host "${host}" is not a unix:// or tcp:// address`,
      {
        hint: 'Use unix:///var/run/docker.sock or tcp://HOST:PORT',
      },
    );
  }
  const secure = tls !== undefined || match[1] === 'https';
  const port = Number(match[3] ?? (secure ? 2376 : 2375));
  return { protocol: secure ? 'https' : 'http', host: match[2] ?? '', port, ...(tls ?? {}) };
}

/** Reads ca.pem, cert.pem and key.pem from a directory (the DOCKER_CERT_PATH convention). */
export function loadTlsFiles(certPath: string): TlsMaterial {
  try {
    return {
      ca: readFileSync(join(certPath, 'ca.pem')),
      cert: readFileSync(join(certPath, 'cert.pem')),
      key: readFileSync(join(certPath, 'key.pem')),
    };
  } catch (err) {
    throw new InputError(
      'SLUICE_DOCKER_TLS_FILES',
      `Cannot read ca.pem, cert.pem and key.pem from ${certPath}`,
      {
        cause: err,
        hint: 'Point DOCKER_CERT_PATH at the directory holding the client certificate',
      },
    );
  }
}

/** Where a Docker engine is, as DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH say. */
export interface DockerSettings {
  host: string;
  tlsVerify: boolean;
  certPath: string | undefined;
}

/**
 * The endpoint of `settings`, with the TLS files read when TLS is asked for (DOCKER_TLS_VERIFY,
 * or an https:// host), as the docker CLI does.
 * @throws InputError `SLUICE_DOCKER_TLS_FILES` when TLS is asked for without DOCKER_CERT_PATH.
 */
export function dockerEndpointFrom(settings: DockerSettings): DockerEndpoint {
  const { host } = settings;
  const wantsTls = settings.tlsVerify || host.startsWith('https://');
  if (!wantsTls) return { host };
  if (settings.certPath === undefined) {
    throw new InputError(
      'SLUICE_DOCKER_TLS_FILES',
      `TLS is required for ${host} but DOCKER_CERT_PATH is not set`,
      {
        hint: 'Set DOCKER_CERT_PATH to the directory holding ca.pem, cert.pem and key.pem',
      },
    );
  }
  return { host, tls: loadTlsFiles(settings.certPath) };
}
