/**
 * The container primitives every step kind uses: `runToExit` runs every container that runs to
 * its exit (the steps' own and helpers alike) with an optional time limit and the build's
 * cancel; `ensureImagePresent` pulls what the engine lacks; `emitLine` writes into a step's log,
 * masked; `helperName` and `helperLabels` name and label a step's containers;
 * `outcomeOfError` turns what a build, push or composition step threw into its outcome. Below
 * the step kinds, above `@sluice/docker` (docs/architecture/engine.md, "The engine's layers").
 * @module
 */
import { describeError, isSluiceError, NotFoundError } from '@sluice/errors';
import { VOLUME_PATH } from '@sluice/pipeline';
import type { ContainerSpec, OutputStream, StartedContainer } from '@sluice/docker';
import type { StepOutcome, StepRuntime } from '../base/step-runtime.js';
import { loadArchive } from './carried-images.js';
import { dockerSafe, LABELS } from '../base/resource-names.js';

/** One line into `step`'s log, masked. */
export function emitLine(
  runtime: StepRuntime,
  step: string,
  stream: OutputStream | 'system',
  line: string,
): void {
  runtime.emit({
    type: 'step-log',
    step,
    stream,
    line: runtime.masker.mask(line),
    at: runtime.clock(),
  });
}

/**
 * The outcome of a build, push or composition step that threw: `terminated` with `stopped` when
 * the build was cancelled, a failure with the message when the step caused it (a bad
 * Dockerfile, a refused push, a missing image). Anything else is the engine's, thrown again.
 */
export function outcomeOfError(err: unknown, runtime: StepRuntime, stopped: string): StepOutcome {
  if (runtime.signal?.aborted) return { result: 'terminated', reason: stopped };
  if (isSluiceError(err) && (err.category === 'input' || err.category === 'not-found'))
    return { result: 'failure', reason: runtime.masker.mask(err.message) };
  throw err;
}

/** What to do about an image that cannot be pulled, after Docker's own reason. */
export const PULL_FIX =
  "to fix it, pull or load the image onto the build's Docker engine (docker pull, docker load), or check the registry login (a registry setting, or the step's credentials) and the network";

/**
 * Pulls `image` when the engine does not have it (loads it, when the engine carries it: an
 * air-gapped cluster's new volume); a missing image is a NotFoundError whose message gives
 * Docker's reason and how to fix it.
 */
export async function ensureImagePresent(
  image: string,
  owner: string,
  runtime: StepRuntime,
): Promise<void> {
  if (await runtime.docker.imageExists(image)) return;
  const archive = runtime.carriedOnDemand?.get(image);
  if (archive !== undefined) {
    emitLine(runtime, owner, 'system', `Loading image ${image} from the engine's own copy`);
    try {
      await loadArchive(runtime.docker, archive);
      return;
    } catch (err) {
      runtime.log.warn('could not load a carried image; pulling it', {
        image,
        error: describeError(err),
      });
    }
  }
  emitLine(runtime, owner, 'system', `Pulling image ${image}`);
  try {
    await runtime.docker.pullImage(image);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    throw new NotFoundError(err.code, `${err.message}; ${PULL_FIX}`, {
      cause: err,
      details: { image },
    });
  }
}

/** Unique among the build's containers: build, owner step, role and attempt. */
export function helperName(runtime: StepRuntime, owner: string, role: string): string {
  return `sluice-${dockerSafe(runtime.buildId)}-${dockerSafe(owner)}.${dockerSafe(role)}-${runtime.attempt}`;
}

/**
 * Runs `use` with a never-started helper container that holds the build volume at
 * /codefresh/volume (to read files and archives from it), removed afterwards. It only holds the
 * volume, so the small sandbox image will do.
 */
export async function withVolumeHolder<T>(
  runtime: StepRuntime,
  owner: string,
  role: string,
  use: (helper: string) => Promise<T>,
): Promise<T> {
  await ensureImagePresent(runtime.sandboxImage, owner, runtime);
  const helper = await runtime.docker.create({
    name: helperName(runtime, owner, role),
    image: runtime.sandboxImage,
    env: [],
    binds: [`${runtime.volumeName}:${VOLUME_PATH}`],
    labels: helperLabels(runtime, owner),
  });
  try {
    return await use(helper);
  } finally {
    await runtime.docker.removeContainer(helper);
  }
}

export function helperLabels(runtime: StepRuntime, owner: string): Record<string, string> {
  return { ...runtime.labels, [LABELS.step]: owner };
}

export type HelperExit =
  | { kind: 'exited'; exitCode: number }
  | { kind: 'timed-out' }
  /** `exitCode` when the container had started and was stopped; none when it never started. */
  | { kind: 'cancelled'; exitCode?: number }
  /** The engine refused the container (bad mount, no such executable): the message says why. */
  | { kind: 'rejected'; reason: string };

export interface RunToExitOptions {
  /** The container is stopped (without grace) after this long: `timed-out`. */
  timeoutMs?: number;
  /** Runs after an exit that was not stopped, before removal: to read files the container left. */
  afterExit?: (containerId: string) => Promise<void>;
}

/**
 * Starts `spec`, waits for its exit (or `timeoutMs`, or the cancel of `runtime.signal`, which
 * stop it), and removes it. Each output line goes to `onLine`. Step containers and helpers
 * alike run through here.
 */
export async function runToExit(
  spec: ContainerSpec,
  runtime: StepRuntime,
  onLine: (stream: OutputStream, line: string) => void,
  options: RunToExitOptions = {},
): Promise<HelperExit> {
  if (runtime.signal?.aborted) return { kind: 'cancelled' };
  let started: StartedContainer;
  try {
    started = await runtime.docker.start(spec, onLine);
  } catch (err) {
    if (isSluiceError(err) && err.category === 'input')
      return { kind: 'rejected', reason: err.message };
    throw err;
  }
  let timedOut = false;
  const stop = (grace: number) =>
    void started.stop(grace).catch((err: unknown) =>
      runtime.log.warn('could not stop container', {
        container: spec.name,
        error: describeError(err),
      }),
    );
  const onAbort = () => stop(runtime.stopGraceSeconds);
  runtime.signal?.addEventListener('abort', onAbort, { once: true });
  // A cancel that arrived while the container was being created fired no listener.
  if (runtime.signal?.aborted) onAbort();
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop(0);
        }, options.timeoutMs);
  try {
    const exitCode = await started.wait();
    if (runtime.signal?.aborted) return { kind: 'cancelled', exitCode };
    if (timedOut) return { kind: 'timed-out' };
    await options.afterExit?.(started.id);
    return { kind: 'exited', exitCode };
  } finally {
    clearTimeout(timer);
    runtime.signal?.removeEventListener('abort', onAbort);
    await runtime.docker.removeContainer(started.id);
  }
}
