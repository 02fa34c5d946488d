/**
 * The `build` step: `docker build` of the step's working directory on the build volume. The
 * volume lives on the Docker host, which need not be this one (a dind over TCP), so the context
 * is read from inside Docker: a never-started helper container mounts the volume and the
 * archive API streams the directory as a tar, which goes to the build with `.dockerignore`
 * applied and an inline Dockerfile added. The daemon's layer cache is used as it is. A build
 * that asks for BuildKit (`usesBuildKit`) sends the same context through the Docker CLI instead
 * (docs/adr/0002-buildkit-builds-through-the-docker-cli.md): platforms and `cache_from`.
 * @module
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { InputError, isSluiceError } from '@sluice/errors';
import { dockerIgnoreMatcher, parseImageReference, rewriteTar } from '@sluice/docker';
import type { BuildStep } from '@sluice/pipeline';
import type { StepOutcome, StepRuntime } from '../base/step-runtime.js';
import { resolveWorkingDirectory } from '../containers/step-containers.js';
import { emitLine, outcomeOfError, withVolumeHolder } from '../containers/container-run.js';
import { findRegistry, pushImage } from './step-push.js';

export async function runBuildStep(step: BuildStep, runtime: StepRuntime): Promise<StepOutcome> {
  const tags = (step.tags.length > 0 ? step.tags : ['latest']).map((tag) =>
    step.tagPolicy === 'lowercase' ? tag.toLowerCase() : tag,
  );
  const references = tags.map((tag) => `${step.imageName}:${tag}`);
  const first = references[0] ?? step.imageName;
  const registry =
    step.disablePush || (step.registry === undefined && !runtime.registries.some((r) => r.default))
      ? undefined
      : findRegistry(step.registry, runtime.registries);
  if (typeof registry === 'string') return { result: 'failure', reason: registry };
  try {
    const imageId = await build(step, references, runtime);
    runtime.scope.setStep(step.name, {
      members: { imageName: step.imageName, imageTagName: tags[0] ?? '', imageId, image: first },
    });
    if (registry !== undefined) {
      const repository = parseImageReference(step.imageName).path;
      await pushImage(first, { repository, tags, registry }, step, runtime);
    }
    return { result: 'success' };
  } catch (err) {
    return outcomeOfError(
      err,
      runtime,
      'The build step was stopped because the build was cancelled',
    );
  }
}

async function build(step: BuildStep, references: string[], runtime: StepRuntime): Promise<string> {
  const directory =
    resolveWorkingDirectory(step.workingDirectory, runtime.scope.defaultWorkingDirectory) ??
    runtime.scope.defaultWorkingDirectory;
  return withVolumeHolder(runtime, step.name, 'context', async (helper) => {
    const context = await buildContext(step, directory, helper, runtime);
    emitLine(
      runtime,
      step.name,
      'system',
      `Building image ${references.join(', ')} from ${directory}`,
    );
    const options = {
      dockerfile: context.dockerfile,
      tags: references,
      buildArgs: Object.fromEntries(step.buildArguments),
      target: step.target,
      noCache: step.noCache,
      signal: runtime.signal,
    };
    const onLine = (line: string) => emitLine(runtime, step.name, 'stdout', line);
    const tar = Readable.from(context.tar);
    if (!usesBuildKit(step)) return (await runtime.docker.buildImage(tar, options, onLine)).imageId;
    emitLine(runtime, step.name, 'system', `Building with BuildKit${describeBuildKit(step)}`);
    const built = await runtime.docker.buildImageWithBuildKit(
      tar,
      { ...options, platform: step.platform, cacheFrom: step.cacheFrom },
      onLine,
    );
    return built.imageId;
  });
}

/**
 * Codefresh builds with BuildKit when asked (`buildkit: true`, `build_version: v2`) and whenever a
 * field only BuildKit has is set (`buildx`, `platform`, `cache_from`); `buildkit: false` wins.
 */
export function usesBuildKit(step: BuildStep): boolean {
  if (step.buildkit !== undefined) return step.buildkit;
  return (
    step.buildx !== undefined ||
    step.platform !== undefined ||
    step.cacheFrom.length > 0 ||
    step.buildVersion === 'v2'
  );
}

function describeBuildKit(step: BuildStep): string {
  const parts = [
    step.platform === undefined ? '' : `platform ${step.platform}`,
    step.cacheFrom.length === 0 ? '' : `cache from ${step.cacheFrom.join(', ')}`,
  ].filter((part) => part !== '');
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

interface BuildContext {
  tar: AsyncIterable<Buffer>;
  /** Path of the Dockerfile inside the context. */
  dockerfile: string;
}

/**
 * The context as the Docker CLI would send it: `.dockerignore` applied (the Dockerfile and
 * `.dockerignore` are always sent), and a Dockerfile from outside the context or written inline
 * added under a random name that `.dockerignore` then lists, so `COPY . .` does not copy it.
 */
async function buildContext(
  step: BuildStep,
  directory: string,
  helper: string,
  runtime: StepRuntime,
): Promise<BuildContext> {
  const ignoreFile = await runtime.docker.readFile(helper, posix.join(directory, '.dockerignore'));
  const ignored = dockerIgnoreMatcher(ignoreFile?.toString('utf8') ?? '');
  const inline = await inlineDockerfile(step, directory, helper, runtime);
  const dockerfile =
    inline === undefined && 'path' in step.dockerfile
      ? posix.normalize(step.dockerfile.path)
      : // Named by its content, so an unchanged build sends an unchanged context (layer cache).
        `.dockerfile.${createHash('sha256')
          .update(inline ?? '')
          .digest('hex')
          .slice(0, 12)}`;
  const add =
    inline === undefined
      ? []
      : [
          { name: dockerfile, content: inline },
          {
            name: '.dockerignore',
            content: Buffer.from(`${ignoreFile?.toString('utf8') ?? ''}\n${dockerfile}\n`),
          },
        ];
  const exclude = (path: string) =>
    path !== dockerfile && path !== '.dockerignore' && ignored(path);
  const archive = await runtime.docker
    .readArchive(helper, `${directory}/.`)
    .catch((err: unknown) => {
      if (!isSluiceError(err) || err.category !== 'not-found') throw err;
      throw new InputError(
        'SLUICE_BUILD_CONTEXT_NOT_FOUND',
        `The build context ${directory} does not exist on the build volume`,
        { cause: err, hint: "Clone the repository first, or fix the step's working_directory" },
      );
    });
  return { tar: rewriteTar(archive as AsyncIterable<Buffer>, { exclude, add }), dockerfile };
}

/** The Dockerfile text when it is inline or outside the context; undefined when inside it. */
async function inlineDockerfile(
  step: BuildStep,
  directory: string,
  helper: string,
  runtime: StepRuntime,
): Promise<Buffer | undefined> {
  if ('content' in step.dockerfile) return Buffer.from(step.dockerfile.content);
  const relative = posix.normalize(step.dockerfile.path);
  if (!posix.isAbsolute(relative) && !relative.startsWith('../')) return undefined;
  const path = posix.isAbsolute(relative) ? relative : posix.join(directory, relative);
  const content = await runtime.docker.readFile(helper, path);
  if (content !== undefined) return content;
  throw new InputError(
    'SLUICE_BUILD_DOCKERFILE_NOT_FOUND',
    `Dockerfile ${path} does not exist on the build volume`,
    { hint: "Fix the step's dockerfile: path, relative to its working_directory" },
  );
}
