/**
 * What a cleaner needs from a Docker daemon, and nothing else: where its data lives, what it
 * holds (images, volumes, containers with the image and volumes each one uses), what happened
 * on it (the events of a time window), removing one thing at a time with the daemon's own
 * refusal ("in use") reported rather than thrown, and a helper container run to its exit with
 * its output collected. Reached through `DockerClient.housekeeping()`, so the engine names
 * types only.
 * @module
 */
import type Docker from 'dockerode';
import { InternalError } from '@sluice/errors';
import { connectionFailure, messageOf } from './connection-errors.js';
import { singleFileTar } from './tar-file.js';
import type { DockerEndpoint } from './docker-endpoint.js';

export interface DaemonImage {
  /** `sha256:…` */
  id: string;
  repoTags: string[];
  /** Bytes, shared layers counted in full. */
  size: number;
}

export interface DaemonVolume {
  name: string;
  labels: Record<string, string>;
}

export interface DaemonContainer {
  id: string;
  name: string;
  /** `running`, `exited`, `created`, `dead`, `paused`, `restarting`, `removing`. */
  state: string;
  /** `sha256:…` of the image it was created from. */
  imageId: string;
  /** Names of the Docker volumes it mounts. */
  volumes: string[];
  labels: Record<string, string>;
}

export interface DaemonEvent {
  type: string;
  action: string;
  /** The object's id: a container id, a volume name, an image reference or id. */
  id: string;
  attributes: Record<string, string>;
  /** Milliseconds since the epoch. */
  at: number;
}

/** `removed`; `in-use`: the daemon refused (a container or a child image needs it); `gone`: absent. */
export type RemoveOutcome = 'removed' | 'in-use' | 'gone';

export interface HelperRun {
  image: string;
  cmd: string[];
  binds: string[];
  labels: Record<string, string>;
}

export class DaemonHousekeeping {
  readonly #docker: Docker;
  readonly #endpoint: DockerEndpoint;

  constructor(docker: Docker, endpoint: DockerEndpoint) {
    this.#docker = docker;
    this.#endpoint = endpoint;
  }

  /** The daemon's data root (`DockerRootDir`), as a path on the daemon's own filesystem. */
  async rootDir(): Promise<string> {
    const info = (await this.#call('read the daemon info', () => this.#docker.info())) as {
      DockerRootDir?: string;
    };
    return info.DockerRootDir ?? '/var/lib/docker';
  }

  async images(): Promise<DaemonImage[]> {
    const list = await this.#call('list images', () => this.#docker.listImages({ all: false }));
    return list.map((i) => ({
      id: i.Id,
      repoTags: (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>'),
      size: i.Size,
    }));
  }

  async volumes(): Promise<DaemonVolume[]> {
    const list = await this.#call('list volumes', () => this.#docker.listVolumes());
    return (list.Volumes ?? []).map((v) => ({ name: v.Name, labels: v.Labels ?? {} }));
  }

  async containers(): Promise<DaemonContainer[]> {
    const list = await this.#call('list containers', () =>
      this.#docker.listContainers({ all: true }),
    );
    return list.map((c) => ({
      id: c.Id,
      name: (c.Names[0] ?? '').replace(/^\//, ''),
      state: c.State,
      imageId: c.ImageID,
      volumes: c.Mounts.filter((m) => m.Type === 'volume' && m.Name !== undefined).map(
        (m) => m.Name ?? '',
      ),
      labels: c.Labels ?? {},
    }));
  }

  /** The daemon's events from `sinceMs` to `untilMs` (it keeps the most recent ones in memory). */
  async events(sinceMs: number, untilMs: number): Promise<DaemonEvent[]> {
    const stream = await this.#call('read the daemon events', () =>
      // Seconds with nine decimals, as the daemon parses them; a past `until` answers at once.
      this.#docker.getEvents({
        since: (sinceMs / 1000).toFixed(9),
        until: (untilMs / 1000).toFixed(9),
      } as unknown as Docker.GetEventsOptions),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => toEvent(JSON.parse(line) as RawEvent));
  }

  /** The image's id when the daemon has it under `reference`, else undefined. */
  async imageId(reference: string): Promise<string | undefined> {
    try {
      return (await this.#docker.getImage(reference).inspect()).Id;
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw this.#translate('inspect image', err);
    }
  }

  /** Removes an image and every tag of it; a container (even a stopped one) using it: `in-use`. */
  async removeImage(id: string): Promise<RemoveOutcome> {
    // `force` only lets one id with several tags go at once; a running container still stops it,
    // and the cleaner never asks for an image a container uses.
    return this.#remove('remove image', () =>
      this.#docker.getImage(id).remove({ force: true, noprune: false }),
    );
  }

  async removeVolume(name: string): Promise<RemoveOutcome> {
    return this.#remove('remove volume', () => this.#docker.getVolume(name).remove());
  }

  /** Removes a container that is not running (a running one: `in-use`). */
  async removeContainer(id: string): Promise<RemoveOutcome> {
    return this.#remove('remove container', () =>
      this.#docker.getContainer(id).remove({ force: false, v: false }),
    );
  }

  /** Runs `run` to its exit and removes it; its stdout as text. */
  async runHelper(run: HelperRun): Promise<{ exitCode: number; stdout: string }> {
    const container = await this.#call('create a helper container', () =>
      this.#docker.createContainer({
        Image: run.image,
        Cmd: run.cmd,
        Labels: run.labels,
        HostConfig: { Binds: run.binds, NetworkMode: 'none' },
      }),
    );
    try {
      await this.#call('start a helper container', () => container.start());
      const result = (await this.#call('wait for a helper container', () => container.wait())) as {
        StatusCode: number;
      };
      const logs = await this.#call('read a helper container', () =>
        container.logs({ stdout: true, stderr: false, follow: false }),
      );
      return { exitCode: result.StatusCode, stdout: demuxed(logs) };
    } finally {
      await container.remove({ force: true }).catch(() => undefined);
    }
  }

  /**
   * Writes `content` as `dir/name` through a container that never runs (the archive API mounts
   * its binds and volumes), then removes it: no shell and no size limit of a command line.
   */
  async writeFile(
    run: Omit<HelperRun, 'cmd'>,
    dir: string,
    file: { name: string; content: Buffer },
  ): Promise<void> {
    const container = await this.#call('create a helper container', () =>
      this.#docker.createContainer({
        Image: run.image,
        Cmd: ['true'],
        Labels: run.labels,
        HostConfig: { Binds: run.binds, NetworkMode: 'none' },
      }),
    );
    try {
      await this.putFile(container.id, dir, file);
    } finally {
      await container.remove({ force: true }).catch(() => undefined);
    }
  }

  /**
   * Starts a helper that idles until removed (`removeHelper`), for `execIn` and `putFile`: an
   * exec costs the daemon a process, where a helper run costs it a container (its filesystem,
   * its shim), several times slower on a busy node. Its id.
   */
  async startHelper(run: Omit<HelperRun, 'cmd'>): Promise<string> {
    const container = await this.#call('create a helper container', () =>
      this.#docker.createContainer({
        Image: run.image,
        Cmd: ['sh', '-c', 'while :; do sleep 3600; done'],
        Labels: run.labels,
        HostConfig: { Binds: run.binds, NetworkMode: 'none' },
      }),
    );
    try {
      await this.#call('start a helper container', () => container.start());
    } catch (err) {
      await container.remove({ force: true }).catch(() => undefined);
      throw err;
    }
    return container.id;
  }

  /** Runs `cmd` in a started helper to its exit; its stdout as text. */
  async execIn(containerId: string, cmd: string[]): Promise<{ exitCode: number; stdout: string }> {
    const exec = await this.#call('exec in a helper container', () =>
      this.#docker.getContainer(containerId).exec({
        Cmd: cmd,
        AttachStdout: true,
        AttachStderr: true,
      }),
    );
    const stream = await this.#call('exec in a helper container', () =>
      exec.start({ Detach: false, Tty: false }),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    // The output ends with the process; the daemon may record its exit a moment later.
    for (let attempt = 0; ; attempt++) {
      const state = await this.#call('inspect an exec', () => exec.inspect());
      if (!state.Running || attempt >= 50)
        return { exitCode: state.ExitCode ?? -1, stdout: demuxed(Buffer.concat(chunks)) };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Writes `content` as `dir/name` in a helper's filesystem (its binds included). */
  async putFile(
    containerId: string,
    dir: string,
    file: { name: string; content: Buffer },
  ): Promise<void> {
    await this.#call('write a file through a helper container', () =>
      this.#docker
        .getContainer(containerId)
        .putArchive(singleFileTar(file.name, file.content), { path: dir }),
    );
  }

  /** Whether a helper is there and running. */
  async helperRunning(containerId: string): Promise<boolean> {
    try {
      return (await this.#docker.getContainer(containerId).inspect()).State.Running;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw this.#translate('inspect a helper container', err);
    }
  }

  /** Removes a helper, running or not; one already gone is no error. */
  async removeHelper(containerId: string): Promise<void> {
    await this.#remove('remove a helper container', () =>
      this.#docker.getContainer(containerId).remove({ force: true }),
    );
  }

  async #remove(action: string, fn: () => Promise<unknown>): Promise<RemoveOutcome> {
    try {
      await fn();
      return 'removed';
    } catch (err) {
      const status = statusOf(err);
      if (status === 404) return 'gone';
      if (status === 409) return 'in-use';
      throw this.#translate(action, err);
    }
  }

  async #call<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.#translate(action, err);
    }
  }

  #translate(action: string, err: unknown): Error {
    if (err instanceof Error && 'category' in err) return err;
    return (
      connectionFailure(this.#endpoint, action, err) ??
      new InternalError(
        'SLUICE_DOCKER_REQUEST_FAILED',
        `Docker engine refused to ${action}: ${messageOf(err)}`,
        { cause: err },
      )
    );
  }
}

interface RawEvent {
  Type?: string;
  Action?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
  timeNano?: number;
  time?: number;
}

function toEvent(raw: RawEvent): DaemonEvent {
  return {
    type: raw.Type ?? '',
    action: raw.Action ?? '',
    id: raw.Actor?.ID ?? '',
    attributes: raw.Actor?.Attributes ?? {},
    at: raw.timeNano !== undefined ? Math.floor(raw.timeNano / 1e6) : (raw.time ?? 0) * 1000,
  };
}

/** The stdout frames of a non-TTY container's multiplexed log (8-byte headers). */
function demuxed(logs: Buffer): string {
  const out: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= logs.length) {
    const stream = logs[offset];
    const size = logs.readUInt32BE(offset + 4);
    if (stream === 1) out.push(logs.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return Buffer.concat(out).toString('utf8');
}

function statusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'statusCode' in err
    ? Number(err.statusCode)
    : undefined;
}
