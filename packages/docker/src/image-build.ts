/**
 * `docker build` through the Engine API: the context is a tar stream (read from wherever the
 * caller has it, usually the build volume through `getArchive`), the output comes back as lines,
 * and a failing instruction is an InputError carrying the daemon's own message, because a bad
 * Dockerfile is the build's doing, not the engine's.
 * @module
 */
import type Docker from 'dockerode';
import { InputError } from '@sluice/errors';
import { LineSplitter } from './line-splitter.js';
import { followProgress } from './json-progress.js';
import { parseImageReference, repositoryOf } from './image-reference.js';

export interface BuildImageOptions {
  /** Path of the Dockerfile inside the context; default `Dockerfile`. */
  dockerfile?: string;
  /** Full references (`name:tag`); the first names the build, the others are tagged after. */
  tags: string[];
  buildArgs?: Record<string, string>;
  target?: string;
  noCache?: boolean;
  labels?: Record<string, string>;
  signal?: AbortSignal;
}

export interface BuiltImage {
  /** `sha256:…` */
  imageId: string;
}

export const BUILD_FAILED = 'SLUICE_DOCKER_BUILD_FAILED';

/** Streams the build; a daemon error (a failing RUN, a bad Dockerfile) is thrown as InputError. */
export async function runImageBuild(
  docker: Docker,
  context: NodeJS.ReadableStream,
  options: BuildImageOptions,
  onLine: (line: string) => void,
): Promise<BuiltImage> {
  const [first, ...others] = options.tags;
  if (first === undefined) throw new TypeError('runImageBuild needs at least one tag');
  const stream = await docker.buildImage(context, {
    t: first,
    dockerfile: options.dockerfile,
    buildargs: options.buildArgs,
    target: options.target,
    nocache: options.noCache,
    labels: options.labels,
    rm: true,
    forcerm: true,
    abortSignal: options.signal,
  });
  const lines = new LineSplitter(onLine);
  let imageId: string | undefined;
  const { error } = await followProgress(stream, (message) => {
    if (message.stream !== undefined) lines.push(Buffer.from(message.stream));
    if (message.aux?.ID !== undefined) imageId = message.aux.ID;
  });
  lines.flush();
  if (error !== undefined) {
    throw new InputError(BUILD_FAILED, `Building image "${first}" failed: ${error.trim()}`, {
      details: { image: first },
      hint: 'Fix the Dockerfile instruction the build output shows failing',
    });
  }
  for (const tag of others) await tagReference(docker, first, tag);
  imageId ??= ((await docker.getImage(first).inspect()) as { Id: string }).Id;
  return { imageId };
}

/** Gives `source` the extra reference `target` (`repo[:tag]`). */
export async function tagReference(docker: Docker, source: string, target: string): Promise<void> {
  const reference = parseImageReference(target);
  await docker
    .getImage(source)
    .tag({ repo: repositoryOf(reference), tag: reference.tag ?? 'latest' });
}
