/**
 * Runs the one build an engine token names, for the control plane: fetches the build, runs it
 * with `runBuild` on the given Docker engine, and reports through the engine API: step events and
 * log chunks in order (`BuildOutbox`), a heartbeat, and the control channel (a `cancel` aborts the
 * build; `approve`/`deny` answer its pending-approval steps). The registries, git integrations
 * and clusters its pipeline names and the step types it may name come with the build (with the
 * accepted definition, for one read from the repository). Log lines go through the build's `LogSpool` on disk, so a control
 * plane that is away costs the build nothing: the steps run on, and at the end the engine waits
 * (up to `logDrainTimeoutMs`) until the spool is acknowledged. `build-finished` is posted last,
 * after every log line, because the control plane revokes the engine token when the build
 * finishes; a log that could not be stored makes it say so (docs/build-logs.md). Lines past the
 * build's log limit are not sent (`LogLimit`).
 * @module
 */
import { catalogFromDocuments, parsePipeline } from '@sluice/pipeline';
import type { Pipeline, StepTypeCatalog } from '@sluice/pipeline';
import { describeError, isSluiceError } from '@sluice/errors';
import type { SluiceError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import { silentLogger } from '@sluice/log';
import type { DockerClient } from '@sluice/docker';
import type { Logger } from '@sluice/log';
import type { EngineBuild, EngineEvent, SluiceClient } from '@sluice/protocol';
import { backoffDelay } from '@sluice/process';
import { runBuild } from '../flow/run-build.js';
import { withClusterCredentials } from '../base/kube-contexts.js';
import type { AcceptedDefinition, RepositoryDefinition } from '../flow/repository-definition.js';
import { BuildOutbox, shouldRetry } from './build-outbox.js';
import { abortableSleep } from '../base/durations.js';
import type { OutboxItem, RetryPolicy } from './build-outbox.js';
import type { LogSpool } from './log-spool.js';
import { openBuildSpool } from './build-spool.js';
import { LogLimit } from './log-limit.js';
import { factsFromApi, toApiItem } from './engine-api-events.js';
import { ApprovalInbox, startLiveness } from './engine-liveness.js';
import type { BuildEvent, BuildResult } from '../base/build-events.js';
import type { StepSettings } from '../base/step-settings.js';
import type { CleanerSettings } from '../cleaner/cleaner-settings.js';
import type { SpareSandbox } from '../containers/daemon-warm-up.js';

export interface RunRemoteBuildOptions {
  serverUrl: string;
  /** The engine token of one build. Never logged. */
  token: string;
  docker: DockerClient;
  gitImage?: string;
  logger?: Logger;
  /**
   * A stop from outside the control plane (the engine's SIGTERM: its pod deleted, evicted or
   * preempted, its agent stopping): the build stops as for a `cancel`, but nobody cancelled it,
   * so it ends `error` saying so (`outsideStop`). The abort's reason, a string, names the signal.
   */
  signal?: AbortSignal;
  heartbeatMs?: number;
  flushMs?: number;
  retry?: RetryPolicy;
  /** What the runtime gives every step: userEnvVars and proxy variables, userVolumeMounts. */
  stepSettings?: StepSettings;
  /** The fetch of the engine's calls to the control plane (one that honours a proxy); global fetch by default. */
  fetch?: typeof fetch;
  /**
   * The tokens the runner agent minted for the clusters behind the runtime's firewall
   * (`ClusterCredentials` as JSON): added to the control plane's clusters, masked.
   */
  clusterCredentials?: string;
  /** The directory of log spools, one per build beneath it; `./sluice-log-spool` by default. */
  logSpoolDir?: string;
  /**
   * `logSpoolDir` serves this build alone (the build's volume on Kubernetes, which later builds
   * reuse): other builds' spools found there, of engines that died with lines unacknowledged,
   * are removed before this build's opens.
   */
  logSpoolOneBuild?: boolean;
  /** How long the end of the build waits for the log to be acknowledged; 15 minutes by default. */
  logDrainTimeoutMs?: number;
  /** The in-dind cleaner (CLEAN_DOCKER); none: the build's daemon is not cleaned. */
  cleaner?: CleanerSettings;
  /** Images the engine carries for a daemon that cannot pull them (carried-images.ts). */
  carriedImagesDir?: string;
  /** The network and sandbox a warm-pool pod's warm-up left for its build. */
  spareSandbox?: SpareSandbox;
  /** The `io.sluice.owner` label of the build's Docker objects (SLUICE_ENGINE_DOCKER_OWNER). */
  dockerOwner?: string;
}

export const DEFAULT_LOG_DRAIN_TIMEOUT_MS = 15 * 60_000;
/** The last report (`build-finished`) is retried until the drain's deadline, and this long at least. */
const FINAL_REPORT_MS = 2 * 60_000;
/** How long the first call (the build itself) is retried while the control plane is away. */
const FETCH_BUILD_MS = 2 * 60_000;

export interface RemoteBuildResult {
  buildId: string;
  result: BuildResult;
  reason?: string;
}

export async function runRemoteBuild(options: RunRemoteBuildOptions): Promise<RemoteBuildResult> {
  const client = createClient({
    baseUrl: options.serverUrl,
    token: options.token,
    fetch: options.fetch,
  });
  const build = await fetchBuild(client, options.logger ?? silentLogger, options.signal);
  const log = (options.logger ?? silentLogger).child({ buildId: build.buildId });
  const spool = await openBuildSpool(build, log, {
    root: options.logSpoolDir,
    oneBuild: options.logSpoolOneBuild === true,
  });
  const outbox = BuildOutbox.create({
    post: (item, signal) => post(client, item, signal),
    spool,
    flushMs: options.flushMs,
    retry: options.retry,
    logger: log,
  });
  const limit = new LogLimit(build.logLimitBytes, build.logBytesStored);
  const ending: Ending = {
    outbox,
    spool,
    log,
    drainMs: options.logDrainTimeoutMs ?? DEFAULT_LOG_DRAIN_TIMEOUT_MS,
  };
  const definition = definitionOf(client, build, log, options.signal);
  if (!definition.ok) {
    log.warn('the pipeline does not parse', { reason: definition.reason });
    return finish(ending, { buildId: build.buildId, result: 'error', reason: definition.reason });
  }
  // What stopped the build first: the control plane's cancel, or `signal` (from outside).
  const cancel = new AbortController();
  let stoppedFromOutside = false;
  const onCancel = () => cancel.abort();
  const onOutsideStop = () => {
    if (!cancel.signal.aborted) stoppedFromOutside = true;
    cancel.abort();
  };
  options.signal?.addEventListener('abort', onOutsideStop, { once: true });
  if (options.signal?.aborted) onOutsideStop();
  const stopLiveness = new AbortController();
  const approvals = new ApprovalInbox();
  const liveness = startLiveness({
    client,
    signal: stopLiveness.signal,
    onCancel,
    onAnswer: (step, answer) => approvals.deliver(step, answer),
    logger: log,
    heartbeatMs: options.heartbeatMs,
  });
  try {
    const summary = await runBuild(definition.definition, {
      ...buildInputs(build, options.stepSettings),
      docker: options.docker,
      gitImage: options.gitImage,
      registries: build.registries,
      gitIntegrations: build.gitIntegrations,
      ...withClusterCredentials(build, options.clusterCredentials, log),
      defaultGitIntegration: build.facts.gitIntegration,
      userVolumeMounts: options.stepSettings?.mounts,
      cleaner: options.cleaner,
      carriedImagesDir: options.carriedImagesDir,
      spareSandbox: options.spareSandbox,
      dockerOwner: options.dockerOwner,
      approve: approvals.gate,
      onEvent: (event) => forward(outbox, limit, event),
      signal: cancel.signal,
      logger: log,
    }).catch((err: unknown): RemoteBuildResult => ({
      buildId: build.buildId,
      result: 'error',
      reason: describeError(err),
    }));
    const ended = stoppedFromOutside ? outsideStop(summary, options.signal?.reason) : summary;
    // The heartbeat goes on while the log drains: a slow control plane is not a silent engine.
    return await finish(ending, ended);
  } finally {
    options.signal?.removeEventListener('abort', onOutsideStop);
    stopLiveness.abort();
    await liveness;
  }
}

/**
 * What the build runs: its stored pipeline, parsed; or where in the repository to read it, with
 * how the control plane accepts what was read.
 */
function definitionOf(
  client: SluiceClient,
  build: EngineBuild,
  log: Logger,
  signal: AbortSignal | undefined,
): { ok: true; definition: Pipeline | RepositoryDefinition } | { ok: false; reason: string } {
  const source = build.specTemplate;
  if (source === null) {
    const parsed = parsePipeline(build.yaml, {
      file: `${build.pipelineName}.yml`,
      stepTypes: controlPlaneStepTypes(build.stepTypes, log),
    });
    if (parsed.ok) return { ok: true, definition: parsed.pipeline };
    const issue = parsed.issues.find((i) => i.severity === 'error') ?? parsed.issues[0];
    return { ok: false, reason: issue?.message ?? 'The pipeline is not valid' };
  }
  const accept = async (yaml: string, sha: string): Promise<AcceptedDefinition> => {
    const where = `${source.path} in ${source.repo} at ${sha}`;
    let accepted;
    try {
      accepted = await withRetries(log, signal, 'reporting the definition', () =>
        client.call('engineDefinition', { body: { yaml, sha }, signal }),
      );
    } catch (err) {
      if (!isSluiceError(err) || err.category !== 'input') throw err;
      return { ok: false, reason: `${where} ${problemsOf(err, source.path)}` };
    }
    const parsed = parsePipeline(yaml, {
      file: source.path,
      stepTypes: controlPlaneStepTypes(accepted.stepTypes, log),
    });
    const { registries, gitIntegrations, clusters, deniedClusters } = accepted;
    const grants = { registries, gitIntegrations, clusters, deniedClusters };
    if (parsed.ok) return { ok: true, pipeline: parsed.pipeline, grants };
    const issue = parsed.issues.find((i) => i.severity === 'error');
    return { ok: false, reason: `${where} is not a valid pipeline: ${issue?.message ?? '?'}` };
  };
  return {
    ok: true,
    definition: {
      ...source,
      git: source.context,
      // The control plane says whether the commit read is the one the build runs on.
      fillsRevision: source.readsBuildCommit,
      accept,
    },
  };
}

/** The problems the control plane found, each at `file:line:column`, as `sluice validate` shows them. */
function problemsOf(err: SluiceError, file: string): string {
  const details = err.details?.['details'] as
    | {
        issues?: { severity: string; message: string; line: number; column: number }[];
        issueCount?: number;
      }
    | undefined;
  const errors = (details?.issues ?? []).filter((i) => i.severity === 'error');
  if (errors.length === 0) return `was refused: ${err.message}`;
  const shown = errors.slice(0, 10).map((i) => `${file}:${i.line}:${i.column}: ${i.message}`);
  const more = errors.length > shown.length ? `; and ${errors.length - shown.length} more` : '';
  return `is not a valid pipeline (${errors.length} problem(s)): ${shown.join('; ')}${more}`;
}

/**
 * A build stopped from outside ends `error`, not `terminated` with "The build was cancelled":
 * nobody cancelled it, and a build its cluster took away is an infrastructure failure to look
 * into (a preempted pod: docs/warm-pool.md). A build that ended before the stop keeps its end.
 */
export function outsideStop(summary: RemoteBuildResult, signalName: unknown): RemoteBuildResult {
  if (summary.result !== 'terminated') return summary;
  const what = typeof signalName === 'string' ? signalName : 'a stop signal';
  const reason =
    `The engine was stopped by ${what} from outside Sluice, not by a cancel: its pod was ` +
    'deleted, evicted or preempted, its node drained, or its runner agent stopped it';
  return { ...summary, result: 'error', reason };
}

/**
 * The build, asked for again while the control plane cannot answer (a replica that went away
 * behind the load balancer, a restart) for up to FETCH_BUILD_MS: the agent has reported this
 * engine started, so an engine that gave up here would leave its build elected with nothing
 * running it. A refusal (a revoked token: the build has ended) is final at once.
 */
function fetchBuild(
  client: SluiceClient,
  log: Logger,
  signal: AbortSignal | undefined,
): Promise<EngineBuild> {
  return withRetries(log, signal, 'fetching the build', () =>
    client.call('engineBuild', { signal }),
  );
}

/** `call`, again while the control plane cannot answer, for up to FETCH_BUILD_MS. */
async function withRetries<T>(
  log: Logger,
  signal: AbortSignal | undefined,
  what: string,
  call: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + FETCH_BUILD_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (signal?.aborted || !shouldRetry(err) || Date.now() >= deadline) throw err;
      const delayMs = backoffDelay(attempt, { baseMs: 200, maxMs: 5_000 });
      log.warn(`${what} failed; retrying`, { attempt, delayMs, error: describeError(err) });
      await abortableSleep(delayMs, signal);
    }
  }
}

/**
 * The account's step types as the control plane holds them (validated when registered), read
 * only when the pipeline names one: the control plane sends those the pipeline's text may name
 * (a few too many at worst), and reading them all cost a build that uses none about half a
 * second of its start on a loaded machine (bench/local-start). A document that does not parse
 * is logged then, once.
 */
export function controlPlaneStepTypes(
  documents: EngineBuild['stepTypes'],
  log: Logger,
): StepTypeCatalog {
  let loaded: StepTypeCatalog | undefined;
  const load = (): StepTypeCatalog => {
    if (loaded !== undefined) return loaded;
    const { catalog, refused } = catalogFromDocuments(documents, CONTROL_PLANE);
    for (const source of refused)
      log.warn('a step type of the control plane does not parse', { source });
    return (loaded = catalog);
  };
  return {
    locations: [CONTROL_PLANE],
    find: (name, version) => load().find(name, version),
    list: () => load().list?.() ?? [],
    get problems() {
      return load().problems;
    },
  };
}

const CONTROL_PLANE = 'control plane';

/** The runtime's step variables under the build's own (which win). */
function buildInputs(build: EngineBuild, settings: StepSettings | undefined) {
  return {
    buildId: build.buildId,
    facts: factsFromApi(build.pipelineName, build.facts),
    variables: { ...settings?.variables, ...build.variables },
    secrets: { ...settings?.secrets, ...build.secrets },
    volumeKey: build.volumeKey,
  };
}

function forward(outbox: BuildOutbox, limit: LogLimit, event: BuildEvent): void {
  const item = toApiItem(event);
  if (item === undefined) return;
  if (item.kind === 'event') return outbox.events([item.event]);
  const verdict = limit.take(item.line);
  if (verdict.kind === 'send') return outbox.line(item.line);
  if (verdict.kind === 'drop') return;
  outbox.line(verdict.notice);
  outbox.events([verdict.event]);
}

interface Ending {
  outbox: BuildOutbox;
  spool: LogSpool;
  log: Logger;
  drainMs: number;
}

/**
 * Waits (up to `drainMs`) until the control plane acknowledged every log line, then reports the
 * end of the build. A log that did not get through is not passed over: the build is reported
 * with the reason, and not as a success, and the spool stays on disk.
 */
async function finish(ending: Ending, result: RemoteBuildResult): Promise<RemoteBuildResult> {
  const { outbox, spool, log } = ending;
  const deadline = Date.now() + ending.drainMs;
  let final = result;
  let logStored = true;
  try {
    await outbox.drain({ timeoutMs: ending.drainMs });
  } catch (err) {
    logStored = false;
    final = withIncompleteLog(result, err);
    log.error('the build log did not reach the control plane', {
      spool: spool.dir,
      error: describeError(err),
    });
  }
  const event: EngineEvent = {
    type: 'build-finished',
    status: final.result,
    reason: final.reason ?? null,
    at: new Date().toISOString(),
  };
  try {
    await outbox.sendNow([event], Math.max(FINAL_REPORT_MS, deadline - Date.now()));
  } finally {
    if (logStored) await spool.remove();
    else await spool.close();
  }
  return { buildId: final.buildId, result: final.result, reason: final.reason };
}

/** The result to report when lines of the log were not stored: never a success. */
export function withIncompleteLog(result: RemoteBuildResult, err: unknown): RemoteBuildResult {
  const ended = result.reason ?? `The steps ended ${result.result}`;
  return {
    buildId: result.buildId,
    result: result.result === 'success' ? 'error' : result.result,
    reason: `${ended}; the build log is incomplete: ${describeError(err)}`,
  };
}

async function post(client: SluiceClient, item: OutboxItem, signal: AbortSignal): Promise<void> {
  if (item.kind === 'events')
    await client.call('engineEvents', { body: { events: item.events }, signal });
  else await client.call('engineLog', { body: { seq: item.seq, lines: item.lines }, signal });
}
