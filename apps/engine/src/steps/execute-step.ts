/**
 * Runs one attempt of one leaf step: freestyle and git-clone containers here (image present or
 * pulled, output attached and masked, exit code read, `cf_export` values collected, container
 * removed), build, push and composition in their own modules. Stopping on `runtime.signal`
 * (cancel, timeout, a failing parallel sibling) lives here too: the step ends `terminated`.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { interpolate } from '@sluice/pipeline';
import { isSluiceError } from '@sluice/errors';
import type { GitCloneStep, Step } from '@sluice/pipeline';
import type { ContainerSpec, OutputStream } from '@sluice/docker';
import type { BuildScope } from '../base/build-scope.js';
import type { DefinitionClone, LeafStep, StepOutcome, StepRuntime } from '../base/step-runtime.js';
import { EXPORTS_FILE, maskMarker, parseExportsFile } from '../base/exports-file.js';
import {
  cloneTarget,
  freestyleContainer,
  gitCloneContainer,
} from '../containers/step-containers.js';
import type { CloneTarget, StepContainerContext } from '../containers/step-containers.js';
import { containerNameFor } from '../base/resource-names.js';
import { KUBECONFIG_PATH } from '../base/kube-contexts.js';
import {
  emitLine,
  ensureImagePresent,
  helperLabels,
  runToExit,
} from '../containers/container-run.js';
import {
  credentialsOf,
  onIntegrationHost,
  gitComplaint,
  refusedReason,
  repoVariables,
  stepTypeGitEnvironment,
} from '../containers/git-integrations.js';
import type { CloneCredentials } from '../containers/git-integrations.js';
import type { GitIntegrationSetting } from '../base/registry-settings.js';
import { runBuildStep } from './step-build.js';
import { runPushStep } from './step-push.js';
import { runCompositionStep } from './step-composition.js';

/** What a step prints before a value to mask (`cf_export --mask`); computed once, not per line. */
const MASK_MARKER = maskMarker(randomBytes(8).toString('hex'));

export async function executeStep(step: LeafStep, runtime: StepRuntime): Promise<StepOutcome> {
  const resolved = interpolateStep(step, runtime.scope);
  // The clone the engine made to read the definition stands in for the build's first step only
  // (when that is the same clone): any step after it may have changed the directory.
  const reuse = runtime.definitionClone;
  runtime.definitionClone = undefined;
  switch (resolved.type) {
    case 'git-clone':
      return runGitClone(resolved, runtime, { reuse });
    case 'build':
      return runBuildStep(resolved, runtime);
    case 'push':
      return runPushStep(resolved, runtime);
    case 'composition':
      return runCompositionStep(resolved, runtime);
    case 'freestyle': {
      const spec = freestyleContainer(resolved, containerContext(step, runtime));
      // A step type's step that names a git integration gets its credentials, as a clone does.
      spec.env = [
        ...(spec.env ?? []),
        ...stepTypeGitEnvironment(resolved.environment, step.origin?.kind === 'step-type', {
          integrations: runtime.gitIntegrations,
          cloneIntegration: runtime.scope.lookup('CF_GIT_INTEGRATION'),
        }),
      ];
      return runContainer(spec, step, runtime, { readExports: resolved.commands !== undefined });
    }
  }
}

/** How many of git's last stderr lines a failed clone's reason is looked for in. */
const CLONE_STDERR_LINES = 20;

export interface GitCloneOptions {
  /** More for its container than the clone's own (the read of a definition: repository-definition.ts). */
  extraEnv?: readonly string[];
  /** The clone just made to read the definition: the step is done when it is the same. */
  reuse?: DefinitionClone;
  /** Told where a clone that succeeded went, and with which integration. */
  onCloned?: (clone: { target: CloneTarget; integration: string | undefined }) => void;
  /** Reads what the clone's container left, after its exit and before its removal. */
  afterExit?: (containerId: string) => Promise<void>;
}

/** A git-clone step. */
export async function runGitClone(
  step: GitCloneStep,
  runtime: StepRuntime,
  options: GitCloneOptions = {},
): Promise<StepOutcome> {
  const chosen = chooseIntegration(step, runtime);
  if ('outcome' in chosen) return chosen.outcome;
  const { integration } = chosen;
  const credentials: CloneCredentials = step.credentials
    ? { kind: 'token', ...step.credentials, token: step.credentials.password }
    : credentialsOf(integration);
  if (credentials.kind === 'token') runtime.masker.add(credentials.token);
  const target = cloneTarget(step, integration);
  const reused = reusesClone(step, target, integration?.name, options.reuse);
  if (reused !== undefined) {
    emitLine(
      runtime,
      step.name,
      'system',
      `Using the clone in ${target.directory} made to read the definition`,
    );
    emitLine(
      runtime,
      step.name,
      'system',
      `Checked out ${step.revision || 'the default branch'} at ${reused.sha}`,
    );
    return cloned(step, target, integration, runtime);
  }
  const context = containerContext(step, runtime);
  const spec = gitCloneContainer(step, target, runtime.gitImage, context, credentials);
  spec.env = [...spec.env, ...(options.extraEnv ?? [])];
  // git's last complaints: a refused login is often followed by advice that says nothing.
  const stderr: string[] = [];
  const outcome = await runContainer(spec, step, runtime, {
    readExports: false,
    afterExit: options.afterExit,
    onStderr: (line) => {
      stderr.push(line);
      if (stderr.length > CLONE_STDERR_LINES) stderr.shift();
    },
  });
  if (outcome.result === 'failure' && outcome.exitCode !== undefined)
    return {
      ...outcome,
      reason:
        refusedReason(step.git ?? integration?.name, target.displayUrl, stderr) ??
        cloneFailureReason(step, target, outcome.exitCode, gitComplaint(stderr)),
    };
  if (outcome.result !== 'success') return outcome;
  options.onCloned?.({ target, integration: integration?.name });
  return cloned(step, target, integration, runtime, outcome);
}

/** What a clone that succeeded gives the steps after it: its directory and repository. */
function cloned(
  step: GitCloneStep,
  target: CloneTarget,
  integration: GitIntegrationSetting | undefined,
  runtime: StepRuntime,
  outcome: StepOutcome = { result: 'success', exitCode: 0 },
): StepOutcome {
  runtime.scope.setStep(step.name, {
    workingDirectory: target.directory,
    members: { repo: step.repo, revision: step.revision ?? '' },
  });
  if (integration !== undefined) runtime.scope.fillSystem(repoVariables(target.url, integration));
  if (step.name === 'main_clone') runtime.scope.defaultWorkingDirectory = target.directory;
  return outcome;
}

/**
 * The definition's clone, when `step` would make the same one: the same URL into the same
 * directory with the same integration, at the revision it was read at (or its commit), with no
 * credentials of its own and no depth limit it lacks.
 */
function reusesClone(
  step: GitCloneStep,
  target: CloneTarget,
  integration: string | undefined,
  reuse: DefinitionClone | undefined,
): DefinitionClone | undefined {
  if (reuse === undefined || step.credentials !== undefined) return undefined;
  const revision = step.revision ?? '';
  const same =
    reuse.url === target.url &&
    reuse.directory === target.directory &&
    reuse.integration === integration &&
    (revision === reuse.revision || revision === reuse.sha);
  return same ? reuse : undefined;
}

/**
 * The integration `git: NAME` names. One the build does not have fails the step through the
 * control plane; under `sluice run` the clone goes on anonymously, with a warning naming it.
 * Without `git:`, the build's default (its trigger's, or the account's) where the repository
 * is on its host.
 */
function chooseIntegration(
  step: GitCloneStep,
  runtime: StepRuntime,
): { integration: GitIntegrationSetting | undefined } | { outcome: StepOutcome } {
  if (step.git === undefined) {
    // Codefresh clones with the default git integration; here only on its own host.
    const fallback = runtime.gitIntegrations.find((i) => i.name === runtime.defaultGitIntegration);
    const usable =
      fallback !== undefined && !step.credentials && onIntegrationHost(step.repo, fallback);
    return { integration: usable ? fallback : undefined };
  }
  const integration = runtime.gitIntegrations.find((i) => i.name === step.git);
  if (integration !== undefined) return { integration };
  if (runtime.unknownGitIntegration === 'fail')
    return {
      outcome: {
        result: 'failure',
        reason: `git integration "${step.git}" does not exist in the account; create it with sluice create git-integration ${step.git}, or list them with sluice get git-integrations (a build is given only the integrations its pipeline names: a name a step makes at run time names none)`,
      },
    };
  emitLine(
    runtime,
    step.name,
    'system',
    `Warning: git integration "${step.git}" was not given (sluice run --git-integration ${step.git}=token:VALUE); cloning anonymously`,
  );
  return { integration: undefined };
}

/** "exited with code 128" says nothing; git's complaint (`gitComplaint`) names what was wrong. */
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

function containerContext(step: Step, runtime: StepRuntime): StepContainerContext {
  return {
    containerName: containerNameFor(runtime.buildId, step.name, runtime.attempt),
    volumeName: runtime.volumeName,
    volumeMountpoint: runtime.volumeMountpoint,
    networkName: runtime.networkName,
    sandboxId: runtime.sandboxId,
    labels: helperLabels(runtime, step.name),
    environment: [
      // First: a variable of the pipeline named KUBECONFIG wins.
      ...(runtime.kubeconfig === undefined ? [] : [`KUBECONFIG=${KUBECONFIG_PATH}`]),
      ...runtime.scope.environment(),
      `CF_STEP_NAME=${step.name}`,
      `SLUICE_MASK_MARKER=${MASK_MARKER}`,
      ...runtime.stepEnvironment,
    ],
    defaultWorkingDirectory: runtime.scope.defaultWorkingDirectory,
    userBinds: runtime.userBinds ?? [],
    kubeconfig: runtime.kubeconfig,
  };
}

/** Every string of the step with `${{…}}` resolved; conditions and hooks are resolved when they run. */
function interpolateStep<T extends Step>(step: T, scope: BuildScope): T {
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
  /** Reads what the container left, after its exit and before its removal. */
  afterExit?: (containerId: string) => Promise<void>;
  /** Sees each stderr line as shown (masked), e.g. to quote git's error in the reason. */
  onStderr?: (line: string) => void;
}

async function runContainer(
  spec: ContainerSpec,
  step: Step,
  runtime: StepRuntime,
  options: RunContainerOptions,
): Promise<StepOutcome> {
  const missing = await ensureImage(spec.image, step, runtime);
  if (missing !== undefined) return missing;
  const onLine = (stream: OutputStream, line: string) => {
    const shown = onOutput(step.name, stream, line, runtime);
    if (shown !== undefined && stream === 'stderr') options.onStderr?.(shown);
  };
  const afterExit = options.readExports
    ? (containerId: string) => collectExports(containerId, runtime)
    : options.afterExit;
  const exit = await runToExit(spec, runtime, onLine, { afterExit });
  switch (exit.kind) {
    case 'exited':
      if (exit.exitCode === 0) return { result: 'success', exitCode: 0 };
      return {
        result: 'failure',
        exitCode: exit.exitCode,
        reason: `The step exited with code ${exit.exitCode}`,
      };
    case 'rejected':
      return { result: 'failure', reason: exit.reason };
    case 'cancelled':
      return exit.exitCode === undefined
        ? { result: 'terminated', reason: 'The build was cancelled before the step started' }
        : {
            result: 'terminated',
            exitCode: exit.exitCode,
            reason: 'The step was stopped because the build was cancelled',
          };
    case 'timed-out':
      // Not reached: no time limit is passed, a step's `timeout` aborts `runtime.signal`.
      return { result: 'timeout', reason: 'The step did not finish in time' };
  }
}

async function ensureImage(
  image: string,
  step: Step,
  runtime: StepRuntime,
): Promise<StepOutcome | undefined> {
  try {
    await ensureImagePresent(image, step.name, runtime);
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
  if (line.startsWith(MASK_MARKER)) {
    runtime.masker.add(line.slice(MASK_MARKER.length));
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
