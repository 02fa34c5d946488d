/**
 * Runs one attempt of one leaf step: freestyle and git-clone containers here (image present or
 * pulled, output attached and masked, exit code read, `cf_export` values collected, container
 * removed), build, push and composition in their own modules. Stopping on `runtime.signal`
 * (cancel, timeout, a failing parallel sibling) lives here too: the step ends `terminated`.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { interpolate } from '@sluice/pipeline';
import { describeError, isSluiceError } from '@sluice/errors';
import type {
  BuildStep,
  CompositionStep,
  FreestyleStep,
  GitCloneStep,
  PushStep,
  Step,
} from '@sluice/pipeline';
import type { ContainerSpec, DockerClient, OutputStream, StartedContainer } from '@sluice/docker';
import type { Logger } from '@sluice/log';
import type { BuildEventSink, StepResult } from './build-events.js';
import type { BuildScope } from './build-scope.js';
import type { SecretMasker } from './secret-masker.js';
import { EXPORTS_FILE, maskMarker, parseExportsFile } from './exports-file.js';
import { cloneTarget, freestyleContainer, gitCloneContainer } from './step-containers.js';
import type { CloneTarget, StepContainerContext } from './step-containers.js';
import { containerNameFor, LABELS } from './resource-names.js';
import type { RegistrySetting } from './registry-settings.js';
import { runBuildStep } from './step-build.js';
import { runPushStep } from './step-push.js';
import { runCompositionStep } from './step-composition.js';

export interface StepRuntime {
  docker: DockerClient;
  buildId: string;
  volumeName: string;
  volumeMountpoint: string;
  networkName: string;
  sandboxId: string | undefined;
  labels: Record<string, string>;
  gitImage: string;
  /** The build sandbox's image: present once the build started, so helper containers use it. */
  sandboxImage: string;
  scope: BuildScope;
  masker: SecretMasker;
  emit: BuildEventSink;
  clock: () => number;
  signal: AbortSignal | undefined;
  stopGraceSeconds: number;
  log: Logger;
  registries: RegistrySetting[];
  /** 1-based attempt of the step being run (`retry`); names its container. */
  attempt: number;
  /** Added to every container of the step, e.g. CF_CURRENT_ATTEMPT. */
  stepEnvironment: string[];
}

/** The step types that run as one unit of work (not parallel blocks, groups or approvals). */
export type LeafStep = FreestyleStep | GitCloneStep | BuildStep | PushStep | CompositionStep;

export interface StepOutcome {
  result: StepResult;
  exitCode?: number;
  reason?: string;
}

const markerNonce = randomBytes(8).toString('hex');

export async function executeStep(step: LeafStep, runtime: StepRuntime): Promise<StepOutcome> {
  const resolved = interpolateStep(step, runtime.scope);
  switch (resolved.type) {
    case 'git-clone':
      return runGitClone(resolved, runtime);
    case 'build':
      return runBuildStep(resolved, runtime);
    case 'push':
      return runPushStep(resolved, runtime);
    case 'composition':
      return runCompositionStep(resolved, runtime);
    case 'freestyle': {
      const spec = freestyleContainer(resolved, containerContext(step, runtime));
      return runContainer(spec, step, runtime, { readExports: resolved.commands !== undefined });
    }
  }
}

async function runGitClone(step: GitCloneStep, runtime: StepRuntime): Promise<StepOutcome> {
  if (step.credentials?.password) runtime.masker.add(step.credentials.password);
  const target = cloneTarget(step);
  const spec = gitCloneContainer(step, target, runtime.gitImage, containerContext(step, runtime));
  let lastError: string | undefined;
  const outcome = await runContainer(spec, step, runtime, {
    readExports: false,
    onStderr: (line) => (lastError = line),
  });
  if (outcome.result === 'failure' && outcome.exitCode !== undefined)
    return { ...outcome, reason: cloneFailureReason(step, target, outcome.exitCode, lastError) };
  if (outcome.result === 'success') {
    runtime.scope.setStep(step.name, {
      workingDirectory: target.directory,
      members: { repo: step.repo, revision: step.revision ?? '' },
    });
    if (step.name === 'main_clone') runtime.scope.defaultWorkingDirectory = target.directory;
  }
  return outcome;
}

/** "exited with code 128" says nothing; git's last complaint names what was wrong. */
function cloneFailureReason(
  step: GitCloneStep,
  target: CloneTarget,
  exitCode: number,
  lastError: string | undefined,
): string {
  const what = step.revision ? `revision "${step.revision}"` : 'the default branch';
  const detail = lastError ? `: ${lastError}` : ` (exit code ${exitCode})`;
  return `Could not check out ${what} of ${target.displayUrl}${detail}`;
}

export function containerContext(step: Step, runtime: StepRuntime): StepContainerContext {
  return {
    containerName: containerNameFor(runtime.buildId, step.name, runtime.attempt),
    volumeName: runtime.volumeName,
    volumeMountpoint: runtime.volumeMountpoint,
    networkName: runtime.networkName,
    sandboxId: runtime.sandboxId,
    labels: { ...runtime.labels, [LABELS.step]: step.name },
    environment: [
      ...runtime.scope.environment(),
      `CF_STEP_NAME=${step.name}`,
      `SLUICE_MASK_MARKER=${maskMarker(markerNonce)}`,
      ...runtime.stepEnvironment,
    ],
    defaultWorkingDirectory: runtime.scope.defaultWorkingDirectory,
  };
}

/** Every string of the step with `${{…}}` resolved; conditions and hooks are resolved when they run. */
export function interpolateStep<T extends Step>(step: T, scope: BuildScope): T {
  return { ...interpolateDeep(step, scope), name: step.name };
}

/** Every string inside `value` with `${{…}}` resolved, except under `when`, `position` and `hooks`. */
export function interpolateDeep<T>(value: T, scope: BuildScope): T {
  const lookup = (name: string) => scope.lookup(name);
  const skipped = new Set(['when', 'position', 'hooks']);
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return interpolate(item, lookup);
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(
        Object.entries(item).map(([k, v]) => [k, skipped.has(k) ? v : walk(v)]),
      );
    }
    return item;
  };
  return walk(value) as T;
}

interface RunContainerOptions {
  /** Read cf_export values after the step: only shell steps define cf_export. */
  readExports: boolean;
  /** Sees each stderr line as shown (masked), e.g. to quote git's error in the reason. */
  onStderr?: (line: string) => void;
}

export async function runContainer(
  spec: ContainerSpec,
  step: Step,
  runtime: StepRuntime,
  options: RunContainerOptions,
): Promise<StepOutcome> {
  const missing = await ensureImage(spec.image, step, runtime);
  if (missing !== undefined) return missing;
  if (runtime.signal?.aborted)
    return { result: 'terminated', reason: 'The build was cancelled before the step started' };
  const started = await startContainer(spec, step, runtime, options.onStderr);
  if ('result' in started) return started;
  const stop = () =>
    void started
      .stop(runtime.stopGraceSeconds)
      .catch((err: unknown) =>
        runtime.log.warn('could not stop step container', { error: describeError(err) }),
      );
  runtime.signal?.addEventListener('abort', stop, { once: true });
  // A cancel that arrived while the container was being created fired no listener.
  if (runtime.signal?.aborted) stop();
  try {
    const exitCode = await started.wait();
    if (runtime.signal?.aborted)
      return {
        result: 'terminated',
        exitCode,
        reason: 'The step was stopped because the build was cancelled',
      };
    if (options.readExports) await collectExports(started.id, runtime);
    if (exitCode === 0) return { result: 'success', exitCode };
    return { result: 'failure', exitCode, reason: `The step exited with code ${exitCode}` };
  } finally {
    runtime.signal?.removeEventListener('abort', stop);
    await runtime.docker.removeContainer(started.id);
  }
}

/** The started container, or a failed outcome when the engine refused the step's settings. */
async function startContainer(
  spec: ContainerSpec,
  step: Step,
  runtime: StepRuntime,
  onStderr: ((line: string) => void) | undefined,
): Promise<StartedContainer | StepOutcome> {
  try {
    return await runtime.docker.start(spec, (stream, line) => {
      const shown = onOutput(step.name, stream, line, runtime);
      if (shown !== undefined && stream === 'stderr') onStderr?.(shown);
    });
  } catch (err) {
    if (isSluiceError(err) && err.category === 'input')
      return { result: 'failure', reason: err.message };
    throw err;
  }
}

export async function ensureImage(
  image: string,
  step: Step,
  runtime: StepRuntime,
): Promise<StepOutcome | undefined> {
  if (await runtime.docker.imageExists(image)) return undefined;
  runtime.emit({
    type: 'step-log',
    step: step.name,
    stream: 'system',
    // The image name may come from a secret variable (a private registry host, say).
    line: runtime.masker.mask(`Pulling image ${image}`),
    at: runtime.clock(),
  });
  try {
    await runtime.docker.pullImage(image);
    return undefined;
  } catch (err) {
    if (isSluiceError(err) && err.category === 'not-found')
      return { result: 'failure', reason: err.message };
    throw err;
  }
}

function onOutput(
  stepName: string,
  stream: OutputStream,
  line: string,
  runtime: StepRuntime,
): string | undefined {
  const marker = maskMarker(markerNonce);
  if (line.startsWith(marker)) {
    runtime.masker.add(line.slice(marker.length));
    return undefined;
  }
  const shown = runtime.masker.mask(line);
  runtime.emit({ type: 'step-log', step: stepName, stream, line: shown, at: runtime.clock() });
  return shown;
}

async function collectExports(containerId: string, runtime: StepRuntime): Promise<void> {
  const content = await runtime.docker.readFile(containerId, EXPORTS_FILE);
  if (content !== undefined) runtime.scope.addExports(parseExportsFile(content.toString('utf8')));
}
