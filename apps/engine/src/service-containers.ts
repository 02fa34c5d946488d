/**
 * Containers that build, push, composition and services steps run besides the step's own:
 * service containers on the build network under their service name, and short-lived helpers
 * (readiness probes, setup, composition candidates). `runToExit` runs every container that runs
 * to its exit, the steps' own included, with an optional time limit and the build's cancel.
 * Their output goes to the owner step's log, masked.
 * @module
 */
import { describeError, isSluiceError } from '@sluice/errors';
import { VOLUME_PATH } from '@sluice/pipeline';
import type { ServiceContainer } from '@sluice/pipeline';
import type { ContainerSpec, OutputStream, StartedContainer } from '@sluice/docker';
import type { StepOutcome, StepRuntime } from './execute-step.js';
import { volumeBind } from './step-containers.js';
import { dockerSafe, LABELS } from './resource-names.js';

export const SERVICE_LABEL = 'io.sluice.service';

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

/** Pulls `image` when the engine does not have it; a missing image is a NotFoundError. */
export async function ensureImagePresent(
  image: string,
  owner: string,
  runtime: StepRuntime,
): Promise<void> {
  if (await runtime.docker.imageExists(image)) return;
  emitLine(runtime, owner, 'system', `Pulling image ${image}`);
  await runtime.docker.pullImage(image);
}

/** Unique among the build's containers: build, owner step, role and attempt. */
export function helperName(runtime: StepRuntime, owner: string, role: string): string {
  return `sluice-${dockerSafe(runtime.buildId)}-${dockerSafe(owner)}.${dockerSafe(role)}-${runtime.attempt}`;
}

export function helperLabels(runtime: StepRuntime, owner: string): Record<string, string> {
  return { ...runtime.labels, [LABELS.step]: owner };
}

/**
 * A compose-style service as a container on the build network, reachable by its name. The
 * build's volume is mounted where the service asks for it (`${{CF_VOLUME_NAME}}:/path`, or a
 * sub-directory of /codefresh/volume as in freestyle steps).
 */
export function serviceSpec(
  service: ServiceContainer,
  runtime: StepRuntime,
  owner: string,
  extraEnv: [string, string][] = [],
): ContainerSpec {
  return {
    name: helperName(runtime, owner, service.name),
    image: service.image,
    entrypoint: service.entrypoint,
    cmd: service.command,
    env: [...extraEnv, ...service.environment].map(([k, v]) => `${k}=${v}`),
    workingDir: service.workingDirectory,
    binds: service.volumes.map((entry) => serviceVolume(entry, runtime)),
    networkName: runtime.networkName,
    networkAliases: [service.name],
    labels: { ...helperLabels(runtime, owner), [SERVICE_LABEL]: service.name },
  };
}

function serviceVolume(entry: string, runtime: StepRuntime): string {
  const [source = '', ...rest] = entry.split(':');
  if (source === runtime.volumeName) return entry;
  if (rest.length === 0) return entry;
  return volumeBind(entry, runtime.volumeMountpoint);
}

/** A shell-command helper: on the build's network sandbox when it runs, with the volume. */
export function commandSpec(
  name: string,
  image: string,
  commands: string[],
  runtime: StepRuntime,
  owner: string,
): ContainerSpec {
  return {
    name,
    image,
    entrypoint: ['sh', '-c'],
    cmd: [['set -e', ...commands].join('\n')],
    env: [...runtime.scope.environment(), ...runtime.stepEnvironment],
    workingDir: runtime.scope.defaultWorkingDirectory || VOLUME_PATH,
    binds: [`${runtime.volumeName}:${VOLUME_PATH}`],
    ...(runtime.sandboxId !== undefined
      ? { networkMode: `container:${runtime.sandboxId}` }
      : { networkName: runtime.networkName }),
    labels: helperLabels(runtime, owner),
  };
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
