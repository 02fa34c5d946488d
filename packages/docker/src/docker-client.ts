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
import { createContainer, startContainer } from './container-run.js';
import { toDockerodeOptions } from './docker-endpoint.js';
import { BUILD_FAILED, runImageBuild, tagReference } from './image-build.js';
import { runBuildKitBuild } from './buildkit-build.js';
import { pushFailure, runImagePush } from './image-push.js';
import { followProgress } from './json-progress.js';
import { DaemonHousekeeping } from './daemon-housekeeping.js';
import type { ContainerSpec, OutputHandler, StartedContainer } from './container-run.js';
import type { DockerEndpoint } from './docker-endpoint.js';
import type { BuildImageOptions, BuiltImage } from './image-build.js';
import type { BuildKitBuildOptions } from './buildkit-build.js';
import type { PushedImage, RegistryAuth } from './image-push.js';

export interface PullImageOptions {
  onProgress?: (line: string) => void;
  /** Login for a private registry. */
  auth?: RegistryAuth;
}

export interface ImageInfo {
  /** `sha256:…` */
  id: string;
  /** `repo@sha256:…` for every registry the image was pushed to or pulled from. */
  repoDigests: string[];
  repoTags: string[];
}

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

  /** The daemon's inventory, events and removals, for a cleaner of the daemon's disk. */
  housekeeping(): DaemonHousekeeping {
    return new DaemonHousekeeping(this.#docker, this.endpoint);
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
  async pullImage(image: string, options: PullImageOptions = {}): Promise<void> {
    try {
      const stream = await this.#docker.pull(
        image,
        options.auth === undefined ? {} : { authconfig: options.auth },
      );
      const { error } = await followProgress(stream, (event) =>
        options.onProgress?.([event.id, event.status, event.progress].filter(Boolean).join(' ')),
      );
      if (error !== undefined) throw new Error(error);
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

  /**
   * Loads the images of a `docker save` archive (POST /images/load), as `docker load` does;
   * resolves once the daemon has them. An archive the daemon refuses is an InputError.
   */
  async loadImages(archive: NodeJS.ReadableStream): Promise<void> {
    const stream = await this.#call('load images', () =>
      this.#docker.loadImage(archive, { quiet: true }),
    );
    const { error } = await followProgress(stream, () => undefined);
    if (error !== undefined)
      throw new InputError(
        'SLUICE_DOCKER_LOAD_FAILED',
        `Docker could not load the images: ${error}`,
        {
          hint: 'Check that the archive was made by `docker save` and is whole',
        },
      );
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

  /** When the named volume was made (Docker's `CreatedAt`), or undefined when there is none. */
  async volumeCreatedAt(name: string): Promise<{ createdAt: string | null } | undefined> {
    try {
      const info = (await this.#docker.getVolume(name).inspect()) as { CreatedAt?: string };
      return { createdAt: info.CreatedAt ?? null };
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw this.#translate('inspect volume', err);
    }
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

  /**
   * Creates a container without starting it: enough to read a volume's files through the
   * archive API, which works for a container that never ran.
   */
  async create(spec: ContainerSpec): Promise<string> {
    return this.#call('create container', () => createContainer(this.#docker, spec));
  }

  /** `path` (a directory or file, volumes included) as a tar stream; NotFoundError when absent. */
  async readArchive(containerId: string, path: string): Promise<NodeJS.ReadableStream> {
    try {
      return await this.#docker.getContainer(containerId).getArchive({ path });
    } catch (err) {
      if (statusOf(err) !== 404) throw this.#translate('read archive from container', err);
      throw new NotFoundError('SLUICE_DOCKER_PATH_NOT_FOUND', `No file or directory ${path}`, {
        cause: err,
        details: { path },
      });
    }
  }

  /**
   * Builds an image from a tar context and tags it with every `options.tags`. A failing
   * instruction or a context the daemon refuses is an InputError with the daemon's message.
   */
  async buildImage(
    context: NodeJS.ReadableStream,
    options: BuildImageOptions,
    onLine: (line: string) => void,
  ): Promise<BuiltImage> {
    try {
      return await runImageBuild(this.#docker, context, options, onLine);
    } catch (err) {
      if (err instanceof Error && 'category' in err) throw err;
      if (options.signal?.aborted || connectionFailure(this.endpoint, 'build', err) !== undefined)
        throw this.#translate('build image', err);
      throw new InputError(
        BUILD_FAILED,
        `Building image "${options.tags[0]}" failed: ${messageOf(err)}`,
        {
          cause: err,
          details: { image: options.tags[0] },
        },
      );
    }
  }

  /**
   * The same build with BuildKit, through the Docker CLI against this endpoint (platforms,
   * `cache_from` images' inline cache); a failure for another platform than the daemon's says so.
   */
  async buildImageWithBuildKit(
    context: NodeJS.ReadableStream,
    options: Omit<BuildKitBuildOptions, 'daemonPlatform'>,
    onLine: (line: string) => void,
  ): Promise<BuiltImage> {
    const daemonPlatform =
      options.platform === undefined ? undefined : await this.#platform('build image');
    return runBuildKitBuild(this.endpoint, context, { ...options, daemonPlatform }, onLine);
  }

  /** `linux/amd64`: the daemon's OS and architecture, as BuildKit names platforms. */
  async #platform(action: string): Promise<string> {
    try {
      const version = (await this.#docker.version()) as { Os?: string; Arch?: string };
      return `${version.Os ?? 'linux'}/${version.Arch ?? 'amd64'}`;
    } catch (err) {
      throw this.#translate(action, err);
    }
  }

  /** Gives the image `source` the reference `target` (`repo:tag`). */
  async tagImage(source: string, target: string): Promise<void> {
    try {
      await tagReference(this.#docker, source, target);
    } catch (err) {
      if (statusOf(err) === 404) throw imageNotFound(source, err);
      throw this.#translate('tag image', err);
    }
  }

  /** Pushes `reference` (`domain/repo:tag`); a refused login is an InputError naming the registry. */
  async pushImage(
    reference: string,
    auth: RegistryAuth | undefined,
    onLine: (line: string) => void,
    options: { signal?: AbortSignal } = {},
  ): Promise<PushedImage> {
    try {
      return await runImagePush(this.#docker, reference, auth, onLine, options.signal);
    } catch (err) {
      if (err instanceof Error && 'category' in err) throw err;
      if (statusOf(err) === 404) throw imageNotFound(reference, err);
      if (options.signal?.aborted || connectionFailure(this.endpoint, 'push', err) !== undefined)
        throw this.#translate('push image', err);
      throw pushFailure(reference, messageOf(err), err);
    }
  }

  async inspectImage(reference: string): Promise<ImageInfo> {
    try {
      const info = await this.#docker.getImage(reference).inspect();
      return { id: info.Id, repoDigests: info.RepoDigests ?? [], repoTags: info.RepoTags ?? [] };
    } catch (err) {
      if (statusOf(err) === 404) throw imageNotFound(reference, err);
      throw this.#translate('inspect image', err);
    }
  }

  /** Removes a reference (or the image, when it was the last one); absent is fine. */
  async removeImage(reference: string, options: { force?: boolean } = {}): Promise<void> {
    await this.#ignore404('remove image', () =>
      this.#docker.getImage(reference).remove({ force: options.force ?? false }),
    );
  }

  async removeContainer(id: string): Promise<void> {
    await this.#ignore404('remove container', () =>
      this.#docker.getContainer(id).remove({ force: true, v: false }),
    );
  }

  async listContainers(
    labels: Record<string, string>,
  ): Promise<{ id: string; name: string; state: string; labels: Record<string, string> }[]> {
    const filters = { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) };
    const list = await this.#call('list containers', () =>
      this.#docker.listContainers({ all: true, filters }),
    );
    return list.map((c) => ({
      id: c.Id,
      name: (c.Names[0] ?? '').replace(/^\//, ''),
      state: c.State,
      labels: c.Labels ?? {},
    }));
  }

  async listNetworks(labels: Record<string, string>): Promise<string[]> {
    return (await this.listLabelledNetworks(labels)).map((n) => n.name);
  }

  /** The networks carrying `labels`, with all their labels. */
  async listLabelledNetworks(
    labels: Record<string, string>,
  ): Promise<{ name: string; labels: Record<string, string> }[]> {
    const filters = { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) };
    const list = await this.#call('list networks', () => this.#docker.listNetworks({ filters }));
    return list.map((n) => ({ name: n.Name, labels: n.Labels ?? {} }));
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

function imageNotFound(reference: string, cause: unknown): NotFoundError {
  return new NotFoundError(
    'SLUICE_DOCKER_IMAGE_NOT_FOUND',
    `Image "${reference}" is not on the Docker engine`,
    {
      cause,
      details: { image: reference },
      hint: 'Build it in an earlier step, or check the name and tag',
    },
  );
}

/** The runtime's own words, without the OCI/runc prefixes that bury them. */
function runtimeReason(err: unknown): string {
  return messageOf(err)
    .replace(/^.*unable to start container process: /, '')
    .replace(/: unknown$/, '');
}
