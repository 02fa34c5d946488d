/**
 * One container from create to exit: output attached before start (so no line is lost), split
 * into stdout/stderr lines, and an exit code that resolves only once the output has drained.
 * @module
 */
import { Writable } from 'node:stream';
import { LineSplitter } from './line-splitter.js';
import { singleFileTar } from './tar-file.js';
import type Docker from 'dockerode';

export interface ContainerSpec {
  name: string;
  image: string;
  cmd?: string[];
  entrypoint?: string[];
  env: string[];
  workingDir?: string;
  /** `source:target[:ro]`, named volumes or host paths. */
  binds: string[];
  networkName?: string;
  networkAliases?: string[];
  /** `container:<id>`: share that container's network namespace instead of joining a network. */
  networkMode?: string;
  labels: Record<string, string>;
  /** Files copied into the container before it starts (never onto a volume): `dir` must exist. */
  files?: { dir: string; name: string; content: Buffer }[];
}

export type OutputStream = 'stdout' | 'stderr';
export type OutputHandler = (stream: OutputStream, line: string) => void;

export interface StartedContainer {
  id: string;
  /** Exit code, once the container stopped and its output was delivered. */
  wait(): Promise<number>;
  /** SIGTERM, then SIGKILL after `graceSeconds`. */
  stop(graceSeconds: number): Promise<void>;
}

const DRAIN_LIMIT_MS = 5_000;

/** Creates the container without starting it; returns its id. */
export async function createContainer(docker: Docker, spec: ContainerSpec): Promise<string> {
  const container = await docker.createContainer(createOptions(spec));
  return container.id;
}

export async function startContainer(
  docker: Docker,
  spec: ContainerSpec,
  onOutput: OutputHandler,
): Promise<StartedContainer> {
  const container = await docker.createContainer(createOptions(spec));
  const { drained } = await attachOutput(docker, container, onOutput);
  try {
    for (const file of spec.files ?? [])
      await container.putArchive(singleFileTar(file.name, file.content), { path: file.dir });
    await container.start();
  } catch (err) {
    // A container that never started (no such executable, a file refused) would otherwise stay behind.
    await container.remove({ force: true }).catch(() => undefined);
    throw err;
  }
  return {
    id: container.id,
    async wait() {
      const result = (await container.wait()) as { StatusCode: number };
      await Promise.race([drained, new Promise((r) => setTimeout(r, DRAIN_LIMIT_MS).unref())]);
      return result.StatusCode;
    },
    async stop(graceSeconds) {
      try {
        await container.stop({ t: graceSeconds });
      } catch (err) {
        // 304: already stopped; 404: already gone. Both mean the job is done.
        const status = (err as { statusCode?: number }).statusCode;
        if (status !== 304 && status !== 404) throw err;
      }
    },
  };
}

function createOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
  return {
    name: spec.name,
    Image: spec.image,
    Cmd: spec.cmd,
    Entrypoint: spec.entrypoint,
    Env: spec.env,
    WorkingDir: spec.workingDir,
    Labels: spec.labels,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    HostConfig: { Binds: spec.binds, NetworkMode: spec.networkMode ?? spec.networkName },
    NetworkingConfig:
      spec.networkName && spec.networkMode === undefined
        ? { EndpointsConfig: { [spec.networkName]: { Aliases: spec.networkAliases ?? [] } } }
        : undefined,
  };
}

/** Attaches before start; `drained` settles once the output stream has ended. */
async function attachOutput(
  docker: Docker,
  container: Docker.Container,
  onOutput: OutputHandler,
): Promise<{ drained: Promise<void> }> {
  const stream = await container.attach({ stream: true, stdout: true, stderr: true });
  const splitters = {
    stdout: new LineSplitter((line) => onOutput('stdout', line)),
    stderr: new LineSplitter((line) => onOutput('stderr', line)),
  };
  const sink = (splitter: LineSplitter) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        splitter.push(chunk);
        done();
      },
    });
  docker.modem.demuxStream(stream, sink(splitters.stdout), sink(splitters.stderr));
  const drained = new Promise<void>((resolve) => {
    const finish = () => {
      splitters.stdout.flush();
      splitters.stderr.flush();
      resolve();
    };
    stream.once('end', finish);
    stream.once('close', finish);
  });
  return { drained };
}
