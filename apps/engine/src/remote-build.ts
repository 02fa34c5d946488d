/**
 * Runs the one build an engine token names, for the control plane: fetches the build, runs it
 * with `runBuild` on the given Docker engine, and reports through the engine API: step events and
 * log chunks in order (`BuildOutbox`), a heartbeat, and the control channel (a `cancel` aborts the
 * build; `approve`/`deny` answer its pending-approval steps). The account's registries and step
 * types come with the build. `build-finished` is posted last, after every log line, because the control plane
 * revokes the engine token when the build finishes.
 * @module
 */
import { catalogFromDocuments, parsePipeline } from '@sluice/pipeline';
import type { StepTypeCatalog } from '@sluice/pipeline';
import { describeError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import { silentLogger } from '@sluice/log';
import type { DockerClient } from '@sluice/docker';
import type { Logger } from '@sluice/log';
import type { EngineBuild, SluiceClient } from '@sluice/protocol';
import { runBuild } from './run-build.js';
import { BuildOutbox } from './build-outbox.js';
import type { OutboxItem, RetryPolicy } from './build-outbox.js';
import { factsFromApi, toApiItem } from './engine-api-events.js';
import { ApprovalInbox, startLiveness } from './engine-liveness.js';
import type { BuildEvent, BuildResult } from './build-events.js';

export interface RunRemoteBuildOptions {
  serverUrl: string;
  /** The engine token of one build. Never logged. */
  token: string;
  docker: DockerClient;
  gitImage?: string;
  logger?: Logger;
  /** Aborting stops the build (it ends `terminated`), as a `cancel` from the server does. */
  signal?: AbortSignal;
  heartbeatMs?: number;
  flushMs?: number;
  retry?: RetryPolicy;
}

export interface RemoteBuildResult {
  buildId: string;
  result: BuildResult;
  reason?: string;
}

export async function runRemoteBuild(options: RunRemoteBuildOptions): Promise<RemoteBuildResult> {
  const client = createClient({ baseUrl: options.serverUrl, token: options.token });
  const build = await client.call('engineBuild');
  const log = (options.logger ?? silentLogger).child({ buildId: build.buildId });
  const outbox = BuildOutbox.create({
    post: (item) => post(client, item),
    flushMs: options.flushMs,
    retry: options.retry,
    logger: log,
  });
  const parsed = parsePipeline(build.yaml, {
    file: `${build.pipelineName}.yml`,
    stepTypes: stepTypeCatalog(build, log),
  });
  if (!parsed.ok) {
    const issue = parsed.issues.find((i) => i.severity === 'error') ?? parsed.issues[0];
    const reason = issue?.message ?? 'The pipeline is not valid';
    log.warn('the pipeline does not parse', { reason });
    return finish(outbox, { buildId: build.buildId, result: 'error', reason });
  }
  const cancel = new AbortController();
  const onAbort = () => cancel.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) cancel.abort();
  const stopLiveness = new AbortController();
  const approvals = new ApprovalInbox();
  const liveness = startLiveness({
    client,
    signal: stopLiveness.signal,
    onCancel: onAbort,
    onAnswer: (step, answer) => approvals.deliver(step, answer),
    logger: log,
    heartbeatMs: options.heartbeatMs,
  });
  try {
    const summary = await runBuild(parsed.pipeline, {
      ...buildInputs(build),
      docker: options.docker,
      gitImage: options.gitImage,
      registries: build.registries,
      approve: approvals.gate,
      onEvent: (event) => forward(outbox, event),
      signal: cancel.signal,
      logger: log,
    }).catch((err: unknown): RemoteBuildResult => ({
      buildId: build.buildId,
      result: 'error',
      reason: describeError(err),
    }));
    // The heartbeat goes on while the log drains: a slow control plane is not a silent engine.
    return await finish(outbox, summary);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stopLiveness.abort();
    await liveness;
  }
}

/** The account's step types as the control plane holds them (validated when registered). */
function stepTypeCatalog(build: EngineBuild, log: Logger): StepTypeCatalog {
  const { catalog, refused } = catalogFromDocuments(build.stepTypes, 'control plane');
  for (const source of refused)
    log.warn('a step type of the control plane does not parse', { source });
  return catalog;
}

function buildInputs(build: EngineBuild) {
  return {
    buildId: build.buildId,
    facts: factsFromApi(build.pipelineName, build.facts),
    variables: build.variables,
    secrets: build.secrets,
    volumeKey: build.volumeKey,
  };
}

function forward(outbox: BuildOutbox, event: BuildEvent): void {
  const item = toApiItem(event);
  if (item === undefined) return;
  if (item.kind === 'line') outbox.line(item.line);
  else outbox.events([item.event]);
}

/** Flushes the log, then reports the end of the build. */
async function finish(outbox: BuildOutbox, result: RemoteBuildResult): Promise<RemoteBuildResult> {
  outbox.events([
    {
      type: 'build-finished',
      status: result.result,
      reason: result.reason ?? null,
      at: new Date().toISOString(),
    },
  ]);
  await outbox.drain();
  return { buildId: result.buildId, result: result.result, reason: result.reason };
}

async function post(client: SluiceClient, item: OutboxItem): Promise<void> {
  if (item.kind === 'events') await client.call('engineEvents', { body: { events: item.events } });
  else await client.call('engineLog', { body: { seq: item.seq, lines: item.lines } });
}
