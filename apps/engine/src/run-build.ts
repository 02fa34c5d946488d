/**
 * Runs one build's steps, in order, against a Docker engine: one network per build, the shared
 * volume (named by its reuse key, so caches survive) at /codefresh/volume in every step, output
 * masked and streamed as events. Cancel through the AbortSignal: the running step is stopped,
 * the build ends `terminated`, and no container or network is left; the volume stays.
 * @module
 */
import { interpolate, systemVariables } from '@sluice/pipeline';
import { describeError, isSluiceError } from '@sluice/errors';
import { silentLogger } from '@sluice/log';
import type { BuildFacts, Pipeline, Step } from '@sluice/pipeline';
import type { DockerClient } from '@sluice/docker';
import type { Logger } from '@sluice/log';
import { BuildScope } from './build-scope.js';
import { SecretMasker } from './secret-masker.js';
import { evaluateWhen } from './step-conditions.js';
import { executeStep } from './execute-step.js';
import { containerNameFor, LABELS, networkNameFor, volumeNameFor } from './resource-names.js';
import { DEFAULT_SANDBOX_IMAGE, startSandbox } from './build-sandbox.js';
import type { BuildEventSink, BuildResult, BuildSummary, StepSummary } from './build-events.js';
import type { StepOutcome, StepRuntime } from './execute-step.js';

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
  onEvent: BuildEventSink;
  signal?: AbortSignal;
  logger?: Logger;
  clock?: () => number;
  /** Seconds between SIGTERM and SIGKILL when a step is stopped. */
  stopGraceSeconds?: number;
}

export async function runBuild(
  pipeline: Pipeline,
  options: RunBuildOptions,
): Promise<BuildSummary> {
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
  const scope = new BuildScope({
    system: systemVariables({ ...options.facts, buildId: options.buildId, volumeName, startedAt }),
    variables: options.variables ?? {},
    secrets: options.secrets ?? {},
    steps: pipeline.steps,
  });
  const emit: BuildEventSink = options.onEvent;
  emit({
    type: 'build-started',
    buildId: options.buildId,
    pipelineName: options.facts.pipelineName,
    volumeName,
    at: startedAt,
  });

  const labels = { [LABELS.build]: options.buildId };
  const runtime: StepRuntime = {
    docker: options.docker,
    buildId: options.buildId,
    volumeName,
    volumeMountpoint: '',
    networkName,
    sandboxId: undefined,
    labels,
    gitImage: options.gitImage ?? DEFAULT_GIT_IMAGE,
    scope,
    masker,
    emit,
    clock,
    signal: options.signal,
    stopGraceSeconds: options.stopGraceSeconds ?? 10,
    log,
  };
  const steps: StepSummary[] = [];
  let result: BuildResult;
  let reason: string | undefined;
  try {
    const volume = await options.docker.ensureVolume(volumeName, {
      [LABELS.volumeKey]: options.volumeKey,
    });
    runtime.volumeMountpoint = volume.mountpoint;
    await options.docker.createNetwork(networkName, labels);
    runtime.sandboxId = await startSandbox(options.docker, {
      containerName: containerNameFor(options.buildId, 'sandbox', 0),
      networkName,
      image: options.sandboxImage ?? DEFAULT_SANDBOX_IMAGE,
      labels,
      log,
    });
    ({ result, reason } = await runSteps(pipeline, runtime, steps));
  } catch (err) {
    result = 'error';
    reason = masker.mask(describeError(err));
    log.error('build failed with an infrastructure error', {
      code: isSluiceError(err) ? err.code : undefined,
      error: reason,
    });
  } finally {
    await cleanUp(runtime, log);
  }
  const durationMs = clock() - startedAt;
  emit({ type: 'build-finished', result, reason, durationMs, at: clock() });
  const exported = Object.fromEntries([...scope.exported].filter(([, v]) => masker.mask(v) === v));
  return { buildId: options.buildId, result, reason, steps, durationMs, exported };
}

async function runSteps(
  pipeline: Pipeline,
  runtime: StepRuntime,
  summaries: StepSummary[],
): Promise<{ result: BuildResult; reason?: string }> {
  let stopped: { result: BuildResult; reason: string } | undefined;
  for (const step of pipeline.steps) {
    if (runtime.signal?.aborted)
      stopped ??= { result: 'terminated', reason: 'The build was cancelled' };
    if (stopped !== undefined) {
      const why = stopped.result === 'terminated' ? 'build terminated' : 'an earlier step failed';
      summaries.push(skipStep(step, why, runtime));
      continue;
    }
    const outcome = await runOneStep(step, pipeline.file, runtime);
    summaries.push(outcome);
    runtime.scope.setStep(step.name, { result: outcome.result });
    if (outcome.result === 'terminated')
      stopped = { result: 'terminated', reason: 'The build was cancelled' };
    else if (outcome.result === 'failure') {
      runtime.scope.workflowResult = 'failure';
      if (step.failFast) stopped = { result: 'failure', reason: `Step "${step.name}" failed` };
    }
  }
  return stopped ?? { result: 'success' };
}

async function runOneStep(step: Step, file: string, runtime: StepRuntime): Promise<StepSummary> {
  const { emit, clock, scope } = runtime;
  const decision = evaluateWhen(step.when, scope, file);
  if (!decision.run && 'reason' in decision) return skipStep(step, decision.reason, runtime);
  const started = clock();
  emit({
    type: 'step-started',
    step: step.name,
    // A title may interpolate a secret (`Deploy with ${{TOKEN}}`); events are shown to people.
    title: step.title && runtime.masker.mask(interpolate(step.title, (n) => scope.lookup(n))),
    at: started,
  });
  scope.setStep(step.name, { result: 'running' });
  let outcome: StepOutcome;
  if (!decision.run)
    outcome = {
      result: 'failure',
      reason: 'error' in decision ? decision.error : 'condition failed',
    };
  else outcome = await executeStep(step, runtime);
  const durationMs = clock() - started;
  const reason = outcome.reason === undefined ? undefined : runtime.masker.mask(outcome.reason);
  if (reason !== undefined)
    emit({ type: 'step-log', step: step.name, stream: 'system', line: reason, at: clock() });
  emit({
    type: 'step-finished',
    step: step.name,
    result: outcome.result,
    exitCode: outcome.exitCode,
    reason,
    durationMs,
    at: clock(),
  });
  return {
    name: step.name,
    title: step.title,
    result: outcome.result,
    exitCode: outcome.exitCode,
    reason,
    durationMs,
  };
}

/** A step that does not run still gets its result, in the scope and as an event. */
function skipStep(step: Step, reason: string, runtime: StepRuntime): StepSummary {
  runtime.scope.setStep(step.name, { result: 'skipped' });
  const at = runtime.clock();
  runtime.emit({
    type: 'step-finished',
    step: step.name,
    result: 'skipped',
    reason,
    durationMs: 0,
    at,
  });
  return { name: step.name, title: step.title, result: 'skipped', reason, durationMs: 0 };
}

/** Removes every container and the network of the build, whatever happened. */
async function cleanUp(runtime: StepRuntime, log: Logger): Promise<void> {
  try {
    for (const container of await runtime.docker.listContainers(runtime.labels)) {
      await runtime.docker.removeContainer(container.id);
    }
    await runtime.docker.removeNetwork(runtime.networkName);
  } catch (err) {
    log.warn('could not remove build resources', {
      error: describeError(err),
      network: runtime.networkName,
    });
  }
}
