/**
 * Containers that build, push, composition and services steps run besides the step's own:
 * service containers on the build network under their service name, and short-lived helpers
 * (readiness probes, setup, composition candidates) run to their exit with a time limit and
 * the build's cancel. Their output goes to the owner step's log, masked.
 * @module
 */
import { describeError, isSluiceError } from '@sluice/errors';
import { VOLUME_PATH } from '@sluice/pipeline';
import type { ServiceContainer } from '@sluice/pipeline';
import type { ContainerSpec, OutputStream, StartedContainer } from '@sluice/docker';
import type { StepRuntime } from './execute-step.js';
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
  | { kind: 'cancelled' }
  /** The engine refused the container (bad mount, no such executable): the message says why. */
  | { kind: 'rejected'; reason: string };

/**
 * Starts `spec`, waits for its exit (or `timeoutMs`, or the build's cancel, which stop it), and
 * removes it. Each output line goes to `onLine`.
 */
export async function runToExit(
  spec: ContainerSpec,
  runtime: StepRuntime,
  onLine: (stream: OutputStream, line: string) => void,
  timeoutMs?: number,
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
    void started
      .stop(grace)
      .catch((err: unknown) =>
        runtime.log.warn('could not stop helper container', { error: describeError(err) }),
      );
  const onAbort = () => stop(runtime.stopGraceSeconds);
  runtime.signal?.addEventListener('abort', onAbort, { once: true });
  if (runtime.signal?.aborted) onAbort();
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop(0);
        }, timeoutMs);
  try {
    const exitCode = await started.wait();
    if (runtime.signal?.aborted) return { kind: 'cancelled' };
    if (timedOut) return { kind: 'timed-out' };
    return { kind: 'exited', exitCode };
  } finally {
    clearTimeout(timer);
    runtime.signal?.removeEventListener('abort', onAbort);
    await runtime.docker.removeContainer(started.id);
  }
}

/** Waits `ms`, or less when the signal aborts; true when it was aborted. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve(signal?.aborted ?? false);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
