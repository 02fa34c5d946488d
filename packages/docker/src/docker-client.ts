/**
 * The one owner of the Docker Engine API (dockerode underneath). Everything above sees
 * `DockerClient` and Sluice errors only: socket and TLS failures are translated in
 * `connection-errors.ts`, a missing image becomes `NotFoundError`.
 * @module
 */
import Docker from 'dockerode';
import { InputError, InternalError, NotFoundError } from '@sluice/errors';
import { connectionFailure, messageOf } from './connection-errors.js';
import { firstFileFromTar } from './tar-file.js';
import { startContainer } from './container-run.js';
import { toDockerodeOptions } from './docker-endpoint.js';
import type { ContainerSpec, OutputHandler, StartedContainer } from './container-run.js';
import type { DockerEndpoint } from './docker-endpoint.js';

export class DockerClient {
  readonly #docker: Docker;
  readonly endpoint: DockerEndpoint;

  private constructor(docker: Docker, endpoint: DockerEndpoint) {
    this.#docker = docker;
    this.endpoint = endpoint;
  }

  static create(endpoint: DockerEndpoint): DockerClient {
    return new DockerClient(new Docker(toDockerodeOptions(endpoint)), endpoint);
  }

  async ping(): Promise<{ version: string; apiVersion: string }> {
    const version = await this.#call('ping', () => this.#docker.version());
    return { version: version.Version, apiVersion: version.ApiVersion };
  }

  async imageExists(image: string): Promise<boolean> {
    try {
      await this.#docker.getImage(image).inspect();
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw this.#translate('inspect image', err);
    }
  }

  /** Pulls `image`; a registry that cannot be reached or has no such image is NotFoundError. */
  async pullImage(image: string, onProgress?: (line: string) => void): Promise<void> {
    try {
      const stream = await this.#docker.pull(image);
      await new Promise<void>((resolve, reject) => {
        this.#docker.modem.followProgress(
          stream,
          (err: Error | null) => (err ? reject(err) : resolve()),
          (event: { status?: string; progress?: string; id?: string }) =>
            onProgress?.([event.id, event.status, event.progress].filter(Boolean).join(' ')),
        );
      });
    } catch (err) {
      const failure = connectionFailure(this.endpoint, 'pull image', err);
      if (failure !== undefined) throw failure;
      throw new NotFoundError(
        'SLUICE_DOCKER_IMAGE_NOT_FOUND',
        `Image "${image}" is not on the Docker engine and could not be pulled: ${messageOf(err)}`,
        {
          cause: err,
          details: { image },
          hint: `Build or load the image first (docker build / docker load), or check its name`,
        },
      );
    }
  }

  /** Creates the volume unless it exists; returns its path on the daemon's host. */
  async ensureVolume(
    name: string,
    labels: Record<string, string>,
  ): Promise<{ mountpoint: string }> {
    const volume = (await this.#call('create volume', () =>
      this.#docker.createVolume({ Name: name, Labels: labels }),
    )) as { Mountpoint?: string };
    return { mountpoint: volume.Mountpoint ?? `/var/lib/docker/volumes/${name}/_data` };
  }

  async removeVolume(name: string): Promise<void> {
    await this.#ignore404('remove volume', () => this.#docker.getVolume(name).remove());
  }

  async createNetwork(name: string, labels: Record<string, string>): Promise<void> {
    await this.#call('create network', () =>
      this.#docker.createNetwork({ Name: name, Labels: labels, CheckDuplicate: true }),
    );
  }

  async removeNetwork(name: string): Promise<void> {
    await this.#ignore404('remove network', () => this.#docker.getNetwork(name).remove());
  }

  /**
   * Creates the container, attaches its output, starts it. A container the engine refuses
   * (HTTP 400: no such executable, a working directory that is a file, a bad mount) is the
   * step's own doing, so it is an InputError naming the image, not an engine failure.
   */
  async start(spec: ContainerSpec, onOutput: OutputHandler): Promise<StartedContainer> {
    try {
      return await startContainer(this.#docker, spec, onOutput);
    } catch (err) {
      if (statusOf(err) !== 400 || connectionFailure(this.endpoint, 'run', err) !== undefined)
        throw this.#translate('run container', err);
      throw new InputError(
        'SLUICE_DOCKER_CONTAINER_REJECTED',
        `Container for image "${spec.image}" could not start: ${runtimeReason(err)}`,
        { cause: err, details: { image: spec.image, name: spec.name } },
      );
    }
  }

  async removeContainer(id: string): Promise<void> {
    await this.#ignore404('remove container', () =>
      this.#docker.getContainer(id).remove({ force: true, v: false }),
    );
  }

  async listContainers(
    labels: Record<string, string>,
  ): Promise<{ id: string; name: string; state: string }[]> {
    const filters = { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) };
    const list = await this.#call('list containers', () =>
      this.#docker.listContainers({ all: true, filters }),
    );
    return list.map((c) => ({
      id: c.Id,
      name: (c.Names[0] ?? '').replace(/^\//, ''),
      state: c.State,
    }));
  }

  async listNetworks(labels: Record<string, string>): Promise<string[]> {
    const filters = { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) };
    const list = await this.#call('list networks', () => this.#docker.listNetworks({ filters }));
    return list.map((n) => n.Name);
  }

  /** Contents of one file inside a (possibly stopped) container, volumes included; undefined when absent. */
  async readFile(containerId: string, path: string): Promise<Buffer | undefined> {
    try {
      const stream = await this.#docker.getContainer(containerId).getArchive({ path });
      const chunks: Buffer[] = [];
      for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
      return firstFileFromTar(Buffer.concat(chunks));
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw this.#translate('read file from container', err);
    }
  }

  async #call<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.#translate(action, err);
    }
  }

  async #ignore404(action: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (statusOf(err) !== 404) throw this.#translate(action, err);
    }
  }

  #translate(action: string, err: unknown): Error {
    if (err instanceof Error && 'category' in err) return err;
    const failure = connectionFailure(this.endpoint, action, err);
    if (failure !== undefined) return failure;
    return new InternalError(
      'SLUICE_DOCKER_REQUEST_FAILED',
      `Docker engine refused to ${action}: ${messageOf(err)}`,
      { cause: err },
    );
  }
}

function statusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'statusCode' in err
    ? Number(err.statusCode)
    : undefined;
}

/** The runtime's own words, without the OCI/runc prefixes that bury them. */
function runtimeReason(err: unknown): string {
  return messageOf(err)
    .replace(/^.*unable to start container process: /, '')
    .replace(/: unknown$/, '');
}
