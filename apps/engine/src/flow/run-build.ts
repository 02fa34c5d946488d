/**
 * Runs one build against a Docker engine: one network per build, the shared volume (named by its
 * reuse key, so caches survive) at /codefresh/volume in every step, output masked and streamed
 * as events. Around the steps: the pipeline's `on_elected` hook and its services first, then
 * `on_success`/`on_fail` and `on_finish` (reference §5.6). The steps run in order, or as a DAG
 * in `mode: parallel` (step-scheduler.ts). Cancel through the AbortSignal: running steps are
 * stopped, the build ends `terminated`, and no container or network is left; the volume stays.
 * @module
 */
import { userVolumeBinds } from '../base/step-settings.js';
import type { UserVolumeMount } from '../base/step-settings.js';
import { systemVariables } from '@sluice/pipeline';
import { describeError, isSluiceError } from '@sluice/errors';
import { silentLogger } from '@sluice/log';
import type { BuildFacts, Pipeline } from '@sluice/pipeline';
import type { DockerClient } from '@sluice/docker';
import type { Logger } from '@sluice/log';
import { BuildScope, hookSteps } from '../base/build-scope.js';
import { addDefinitionGrants, readRepositoryDefinition } from './repository-definition.js';
import type { RepositoryDefinition } from './repository-definition.js';
import { SecretMasker } from '../base/secret-masker.js';
import { LABELS, containerNameFor, networkNameFor, volumeNameFor } from '../base/resource-names.js';
import { DEFAULT_SANDBOX_IMAGE, startSandbox } from '../containers/build-sandbox.js';
import { removeSpare, spareRuns } from '../containers/daemon-warm-up.js';
import type { SpareSandbox } from '../containers/daemon-warm-up.js';
import { carriedImages, loadCarriedImages } from '../containers/carried-images.js';
import { mergeKubeconfigs } from '../base/kube-contexts.js';
import type { KubeCluster } from '../base/kube-contexts.js';
import type { BuildEventSink, BuildResult, BuildSummary } from '../base/build-events.js';
import { interpolateDeep } from '../steps/execute-step.js';
import type { StepRuntime } from '../base/step-runtime.js';
import type { ApprovalGate } from '../base/approval-gate.js';
import type { RegistrySetting } from '../base/registry-settings.js';
import type { GitIntegrationSetting, UnknownGitIntegration } from '../base/registry-settings.js';
import type { BuildFlow, Lane } from '../base/build-flow.js';
import { announceNotRun } from './not-run-check.js';
import { deniedClusterUse } from './cluster-check.js';
import type { DeniedCluster } from './cluster-check.js';
import { runHook } from './step-hooks.js';
import { runStep } from './step-lifecycle.js';
import { skipStep } from './step-summaries.js';
import { runDag, runSequence } from './step-scheduler.js';
import type { ListOutcome } from './step-scheduler.js';
import { startServices } from '../steps/step-services.js';
import type { RunningServices } from '../steps/step-services.js';
import { startBuildCleaner } from '../cleaner/build-cleaner.js';
import type { BuildCleaner } from '../cleaner/build-cleaner.js';
import type { CleanerSettings } from '../cleaner/cleaner-settings.js';

export const DEFAULT_GIT_IMAGE = 'sluice/git:1';

export interface RunBuildOptions {
  docker: DockerClient;
  buildId: string;
  /** Facts for the CF_* variables; id, volume and start time are filled in here. */
  facts: Omit<BuildFacts, 'buildId' | 'volumeName' | 'startedAt'>;
  variables?: Record<string, string>;
  secrets?: Record<string, string>;
  /** Builds with the same key share /codefresh/volume (the cache). */
  volumeKey: string;
  gitImage?: string;
  /** Image of the network sandbox the steps share (needs `sh` and `sleep`). */
  sandboxImage?: string;
  /** Images to load onto the daemon when it lacks them (carried-images.ts), before anything runs. */
  carriedImagesDir?: string;
  /**
   * A network with its sandbox running, made before the build (a warm-pool pod's daemon
   * warm-up): the build uses them instead of making its own, and removes them at its end.
   */
  spareSandbox?: SpareSandbox;
  /**
   * The `io.sluice.owner` label of the build's containers and networks (the local runtime's, so
   * that its agent's reaper finds what a killed engine left); none by default.
   */
  dockerOwner?: string;
  onEvent: BuildEventSink;
  signal?: AbortSignal;
  logger?: Logger;
  clock?: () => number;
  /** Seconds between SIGTERM and SIGKILL when a step is stopped. */
  stopGraceSeconds?: number;
  /** Where build and push steps push; passwords are masked. */
  registries?: RegistrySetting[];
  /** What `git:` of git-clone steps names; tokens and keys are masked. */
  gitIntegrations?: GitIntegrationSetting[];
  /** Kubernetes clusters every step reaches through KUBECONFIG; their credentials are masked. */
  clusters?: readonly KubeCluster[];
  /** The account's clusters the build's project may not use: a step deploying to one stops it. */
  deniedClusters?: readonly DeniedCluster[];
  /** A `git:` naming none of them fails the step (the default), or clones anonymously with a warning. */
  unknownGitIntegration?: UnknownGitIntegration;
  /**
   * The integration a git-clone step without `git:` or `credentials` uses, on its own host only
   * (a webhook trigger's); else the one marked `default`.
   */
  defaultGitIntegration?: string;
  /** Answers `pending-approval` steps; without one they are denied at once. */
  approve?: ApprovalGate;
  /** The runtime's `userVolumeMounts`, bound into every step container. */
  userVolumeMounts?: UserVolumeMount[];
  /** The in-dind cleaner (a build's own daemon on Kubernetes); none: the daemon is not cleaned. */
  cleaner?: CleanerSettings;
}

/**
 * Runs `definition`: a parsed pipeline, or one whose definition is in its repository, read
 * (repository-definition.ts) once the build's volume is there and before anything else runs.
 */
export async function runBuild(
  definition: Pipeline | RepositoryDefinition,
  options: RunBuildOptions,
): Promise<BuildSummary> {
  const fromRepository = 'accept' in definition ? definition : undefined;
  let pipeline = fromRepository === undefined ? (definition as Pipeline) : emptyPipeline();
  const clock = options.clock ?? Date.now;
  const startedAt = clock();
  const volumeName = volumeNameFor(options.volumeKey);
  const networkName = networkNameFor(options.buildId);
  const log = (options.logger ?? silentLogger).child({
    component: 'engine',
    buildId: options.buildId,
  });
  const masker = new SecretMasker();
  for (const value of Object.values(options.secrets ?? {})) masker.add(value);
  for (const registry of options.registries ?? [])
    if (registry.password) masker.add(registry.password);
  for (const integration of options.gitIntegrations ?? [])
    for (const secret of [integration.token, integration.sshKey]) if (secret) masker.add(secret);
  for (const cluster of options.clusters ?? [])
    for (const secret of cluster.secrets) masker.add(secret);
  const scope = new BuildScope({
    system: systemVariables({ ...options.facts, buildId: options.buildId, volumeName, startedAt }),
    variables: options.variables ?? {},
    secrets: options.secrets ?? {},
    steps: [...pipeline.steps, ...hookSteps(pipeline.hooks)],
  });
  const emit: BuildEventSink = options.onEvent;
  emit({
    type: 'build-started',
    buildId: options.buildId,
    pipelineName: options.facts.pipelineName,
    volumeName,
    at: startedAt,
  });

  const labels: Record<string, string> = { [LABELS.build]: options.buildId };
  if (options.dockerOwner !== undefined) labels[LABELS.owner] = options.dockerOwner;
  const runtime: StepRuntime = {
    docker: options.docker,
    buildId: options.buildId,
    volumeName,
    volumeMountpoint: '',
    networkName,
    sandboxId: undefined,
    labels,
    gitImage: options.gitImage ?? DEFAULT_GIT_IMAGE,
    sandboxImage: options.sandboxImage ?? DEFAULT_SANDBOX_IMAGE,
    scope,
    masker,
    emit,
    clock,
    signal: options.signal,
    stopGraceSeconds: options.stopGraceSeconds ?? 10,
    log,
    registries: options.registries ?? [],
    gitIntegrations: options.gitIntegrations ?? [],
    unknownGitIntegration: options.unknownGitIntegration ?? 'fail',
    defaultGitIntegration:
      options.defaultGitIntegration ?? options.gitIntegrations?.find((i) => i.default)?.name,
    attempt: 1,
    stepEnvironment: [],
    userBinds: userVolumeBinds(options.userVolumeMounts ?? []),
    kubeconfig: mergeKubeconfigs(options.clusters ?? []),
  };
  const flow: BuildFlow = {
    pipeline,
    runtime,
    approve: options.approve,
    summaries: [],
    annotations: { annotations: {}, imageAnnotations: {} },
    runStep,
  };
  let result: BuildResult;
  let reason: string | undefined;
  let cleaner: BuildCleaner | undefined;
  let deniedClusters: readonly DeniedCluster[] = options.deniedClusters ?? [];
  try {
    if (fromRepository !== undefined) {
      await prepareResources(runtime, options);
      const read = await readRepositoryDefinition(fromRepository, runtime);
      if (!read.ok) throw new DefinitionRefused(read.reason);
      if (read.grants !== undefined)
        ({ deniedClusters } = addDefinitionGrants(runtime, read.grants, {
          clusters: options.clusters ?? [],
          deniedClusters,
        }));
      flow.pipeline = pipeline = read.pipeline;
      scope.registerAll([...pipeline.steps, ...hookSteps(pipeline.hooks)]);
      if (fromRepository.fillsRevision)
        scope.fillSystem({ CF_REVISION: read.sha, CF_SHORT_REVISION: read.sha.slice(0, 7) });
    }
    const notRun = announceNotRun(pipeline, { emit, clock });
    const refused = notRun ?? deniedClusterUse(pipeline, deniedClusters);
    if (refused !== undefined) {
      const why =
        notRun === undefined
          ? 'a step deploys to a cluster this build cannot use'
          : 'the pipeline uses what Sluice does not run';
      skipAll(pipeline, flow, why);
      ({ result, reason } = { result: 'failure', reason: refused });
    } else {
      if (fromRepository === undefined) await prepareResources(runtime, options);
      cleaner = startBuildCleaner(runtime, options.cleaner);
      ({ result, reason } = await runPipeline(flow));
    }
  } catch (err) {
    if (err instanceof DefinitionRefused) {
      // The definition is the pipeline's problem, not the engine's: the build fails.
      result = runtime.signal?.aborted ? 'terminated' : 'failure';
      reason = masker.mask(err.message);
    } else {
      result = 'error';
      reason = masker.mask(describeError(err));
      log.error('build failed with an infrastructure error', {
        code: isSluiceError(err) ? err.code : undefined,
        error: reason,
      });
    }
  } finally {
    await cleanUp(runtime, log, options.spareSandbox);
    await cleaner?.finish();
  }
  const durationMs = clock() - startedAt;
  emit({ type: 'build-finished', result, reason, durationMs, at: clock() });
  const exported = Object.fromEntries([...scope.exported].filter(([, v]) => masker.mask(v) === v));
  const steps = flow.summaries;
  const { annotations } = flow;
  return { buildId: options.buildId, result, reason, steps, durationMs, exported, annotations };
}

/** Why a definition read from the repository cannot run: it ends the build a failure. */
class DefinitionRefused extends Error {}

/** What a build runs until its definition has been read: nothing. */
function emptyPipeline(): Pipeline {
  return {
    file: 'codefresh.yml',
    version: '1.0',
    stages: [],
    mode: 'sequential',
    failFast: true,
    strictFailFast: false,
    hooks: {},
    services: [],
    steps: [],
    notRun: [],
  };
}

async function runPipeline(flow: BuildFlow): Promise<{ result: BuildResult; reason?: string }> {
  const { pipeline, runtime } = flow;
  const lane: Lane = { signal: runtime.signal };
  const cancelled = { result: 'terminated' as const, reason: 'The build was cancelled' };
  let outcome: ListOutcome;
  let reason: string | undefined;
  if (!(await runHook(pipeline.hooks.onElected, 'on_elected', 'hooks', flow, lane))) {
    outcome = { failed: true, terminated: false };
    reason = "The pipeline's on_elected hook failed";
    skipAll(pipeline, flow, "the pipeline's on_elected hook failed");
  } else {
    let services: RunningServices | undefined;
    try {
      services = await startPipelineServices(flow);
      outcome =
        pipeline.mode === 'parallel'
          ? await runDag(pipeline.steps, flow, lane)
          : await runSequence(pipeline.steps, flow, lane);
    } catch (err) {
      // Services that never became ready are the pipeline's problem, not the engine's.
      if (!isSluiceError(err) || err.category !== 'input') throw err;
      outcome = { failed: true, terminated: runtime.signal?.aborted === true };
      reason = runtime.masker.mask(err.message);
      skipAll(pipeline, flow, "the pipeline's services did not start");
    } finally {
      await services
        ?.stop()
        .catch((err: unknown) =>
          runtime.log.warn('could not stop pipeline services', { error: describeError(err) }),
        );
    }
    if (outcome.failed) reason ??= `Step "${outcome.failedStep ?? '?'}" failed`;
  }
  if (outcome.terminated || runtime.signal?.aborted) return cancelled;
  runtime.scope.workflowResult = outcome.failed ? 'failure' : 'success';
  await runHook(
    outcome.failed ? pipeline.hooks.onFail : pipeline.hooks.onSuccess,
    outcome.failed ? 'on_fail' : 'on_success',
    'hooks',
    flow,
    lane,
  );
  await runHook(pipeline.hooks.onFinish, 'on_finish', 'hooks', flow, lane);
  return outcome.failed ? { result: 'failure', reason } : { result: 'success' };
}

async function startPipelineServices(flow: BuildFlow): Promise<RunningServices | undefined> {
  const blocks = flow.pipeline.services;
  if (blocks.length === 0) return undefined;
  return startServices(interpolateDeep(blocks, flow.runtime.scope), 'services', flow.runtime);
}

function skipAll(pipeline: Pipeline, flow: BuildFlow, reason: string): void {
  for (const step of pipeline.steps) skipStep(step, reason, flow, { signal: undefined });
}

/**
 * The build's volume, and its network with the sandbox on it, made side by side: they do not
 * depend on each other, and they stand between the engine's start and the first step. Both are
 * waited for before a failure is thrown, so that nothing is created after the clean-up. A spare
 * sandbox that still runs stands in for the network and the sandbox.
 */
async function prepareResources(
  runtime: StepRuntime,
  options: Pick<RunBuildOptions, 'volumeKey' | 'carriedImagesDir' | 'spareSandbox'>,
): Promise<void> {
  const { carriedImagesDir, spareSandbox } = options;
  const spare =
    spareSandbox !== undefined && (await spareRuns(runtime.docker, spareSandbox).catch(() => false))
      ? spareSandbox
      : undefined;
  if (spare !== undefined) runtime.networkName = spare.networkName;
  const [volume, sandbox] = await Promise.allSettled([
    ensureBuildVolume(runtime, options.volumeKey),
    spare !== undefined
      ? loadCarriedImages(runtime.docker, carriedImagesDir, runtime.log).then(() => spare.sandboxId)
      : Promise.all([
          runtime.docker.createNetwork(runtime.networkName, runtime.labels),
          // The sandbox's image among them: on a new air-gapped volume it is not there yet.
          loadCarriedImages(runtime.docker, carriedImagesDir, runtime.log),
        ]).then(() =>
          startSandbox(runtime.docker, {
            containerName: containerNameFor(runtime.buildId, 'sandbox', 0),
            networkName: runtime.networkName,
            image: runtime.sandboxImage,
            labels: runtime.labels,
            log: runtime.log,
          }),
        ),
  ]);
  if (volume.status === 'rejected') throw volume.reason;
  if (sandbox.status === 'rejected') throw sandbox.reason;
  runtime.volumeMountpoint = volume.value.mountpoint;
  if (carriedImagesDir !== undefined)
    runtime.carriedOnDemand = await carriedImages(carriedImagesDir, 'onDemand').catch(
      () => new Map<string, string>(),
    );
  runtime.sandboxId = sandbox.value;
}

/**
 * The build's volume, made unless an earlier build of its volume key left it; says which
 * (`volume-ready`), so the build records whether its workspace cache was warm.
 */
async function ensureBuildVolume(runtime: StepRuntime, volumeKey: string) {
  const before = await runtime.docker.volumeCreatedAt(runtime.volumeName);
  const volume = await runtime.docker.ensureVolume(runtime.volumeName, {
    [LABELS.volumeKey]: volumeKey,
  });
  // A volume made just now was made at this moment: no second question to Docker for it.
  const at = runtime.clock();
  runtime.emit({
    type: 'volume-ready',
    volume: runtime.volumeName,
    reused: before !== undefined,
    createdAt: before === undefined ? new Date(at).toISOString() : (before.createdAt ?? undefined),
    at,
  });
  return volume;
}

/**
 * Removes every container and the network of the build, whatever happened, and the spare
 * sandbox it was given, used or not (its container carries the warm-up's labels, not the build's).
 */
async function cleanUp(runtime: StepRuntime, log: Logger, spare?: SpareSandbox): Promise<void> {
  try {
    for (const container of await runtime.docker.listContainers(runtime.labels)) {
      await runtime.docker.removeContainer(container.id);
    }
    if (spare !== undefined) await removeSpare(runtime.docker, spare);
    await runtime.docker.removeNetwork(runtime.networkName);
  } catch (err) {
    log.warn('could not remove build resources', {
      error: describeError(err),
      network: runtime.networkName,
    });
  }
}
