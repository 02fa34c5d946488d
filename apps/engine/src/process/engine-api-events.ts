/**
 * Pure translation between the engine's own build events and the engine API: times become ISO
 * strings, `step-log` becomes a log line, a step's title, lane (`parent`) and retry `attempt`
 * and approval requests go as they are, durations stay local. `build-finished` is
 * not translated here: the remote build posts it last, after the log is flushed.
 * @module
 */
import type { BuildFacts } from '@sluice/pipeline';
import type { EngineEvent, LogLine } from '@sluice/protocol';
import type { BuildEvent } from '../base/build-events.js';

export type ApiItem = { kind: 'event'; event: EngineEvent } | { kind: 'line'; line: LogLine };

export function toApiItem(event: BuildEvent): ApiItem | undefined {
  const at = isoTime(event.at);
  switch (event.type) {
    case 'build-started':
      return { kind: 'event', event: { type: 'build-started', at } };
    case 'step-started':
      return {
        kind: 'event',
        event: {
          type: 'step-started',
          step: event.step,
          ...(event.title === undefined ? {} : { title: event.title.slice(0, 1024) }),
          ...(event.parent === undefined ? {} : { parent: event.parent }),
          ...(event.attempt === undefined ? {} : { attempt: event.attempt }),
          at,
        },
      };
    case 'approval-requested':
      return {
        kind: 'event',
        event: {
          type: 'approval-requested',
          step: event.step,
          timeoutMs: Math.round(event.timeoutMs),
          finalState: event.finalState,
          at,
        },
      };
    case 'step-log':
      return {
        kind: 'line',
        line: { step: event.step, stream: event.stream, line: event.line, at },
      };
    case 'step-finished':
      return {
        kind: 'event',
        event: {
          type: 'step-finished',
          step: event.step,
          status: event.result,
          exitCode: event.exitCode ?? null,
          reason: event.reason ?? null,
          at,
        },
      };
    case 'annotations':
      return {
        kind: 'event',
        event: { type: 'annotations', step: event.step, changes: event.changes, at },
      };
    case 'volume-ready': {
      // Docker's time may have nanoseconds and any offset: an ISO string of the same instant.
      const made = event.createdAt === undefined ? NaN : Date.parse(event.createdAt);
      return {
        kind: 'event',
        event: {
          type: 'volume-ready',
          volume: event.volume,
          reused: event.reused,
          createdAt: Number.isNaN(made) ? null : new Date(made).toISOString(),
          at,
        },
      };
    }
    case 'build-finished':
      return undefined;
  }
}

let lastMs = NaN;
let lastIso = '';

/**
 * `ms` as an ISO string. A step printing fast gives dozens of lines the same millisecond, and a
 * Date and its string per line were the engine's largest cost per line (bench/log-latency
 * engine-read.mjs): the last one is kept.
 */
function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

type RemoteFacts = Omit<BuildFacts, 'buildId' | 'volumeName' | 'startedAt'>;

const TRIGGERS = new Set(['build', 'webhook', 'cron']);

/** The control plane's string facts as the engine's CF_* inputs; unknown keys are ignored. */
export function factsFromApi(pipelineName: string, facts: Record<string, string>): RemoteFacts {
  const trigger = facts.trigger;
  return {
    pipelineName,
    branch: facts.branch,
    revision: facts.revision,
    repoOwner: facts.repoOwner,
    repoName: facts.repoName,
    commitAuthor: facts.commitAuthor,
    commitMessage: facts.commitMessage,
    commitUrl: facts.commitUrl,
    buildUrl: facts.buildUrl,
    account: facts.account,
    initiator: facts.initiator,
    trigger:
      trigger !== undefined && TRIGGERS.has(trigger)
        ? (trigger as RemoteFacts['trigger'])
        : undefined,
  };
}
