/**
 * Which build status may follow which, and what each move must also do: the one table the
 * build store's writes are checked against. Pure, so tests can enumerate every status.
 *
 * ```
 * pending ──elect──▶ elected ──start──▶ running ──await-approval──▶ pending-approval
 *    │  └─────────start─────────────▲       ▲ └──────────resume───────────┘ │
 *    └──────────────┴──finish──▶ success | failure | terminated | error ◀───┘
 * ```
 * A pending build may start directly: an engine that reports its start before the election
 * committed (a replica's pass) still runs the build. A finished build never changes again.
 * @module
 */
import { InternalError } from '@sluice/errors';
import { BuildStatus, FINISHED_STATUSES } from '@sluice/protocol';

export type BuildTransition = 'elect' | 'start' | 'await-approval' | 'resume' | 'finish';

/**
 * What a move must do besides setting the status:
 * - `stamp-elected`, `stamp-engine-started`, `stamp-finished`: the times of `timing` and the row;
 * - `queue-start-tasks`: the runtime's start tasks for the agent, in the same transaction;
 * - `close-steps`: pending steps skipped, running ones terminated;
 * - `revoke-engine-token`: the engine can no longer report;
 * - `queue-stop-tasks`: the build's objects removed (when a start task reached an agent);
 * - `publish-end`: log streams and waiters on the build woken;
 * - `schedule`: the build's place under the concurrency limits is free (a new build takes
 *   one): the scheduler runs a pass for the account when the write commits.
 */
export type BuildEffect =
  | 'stamp-elected'
  | 'stamp-engine-started'
  | 'stamp-finished'
  | 'queue-start-tasks'
  | 'close-steps'
  | 'revoke-engine-token'
  | 'queue-stop-tasks'
  | 'publish-end'
  | 'schedule';

const TARGETS: Record<BuildTransition, readonly BuildStatus[]> = {
  elect: ['elected'],
  start: ['running'],
  'await-approval': ['pending-approval'],
  resume: ['running'],
  finish: FINISHED_STATUSES,
};

const EFFECTS: Record<BuildTransition, readonly BuildEffect[]> = {
  elect: ['stamp-elected', 'queue-start-tasks'],
  start: ['stamp-engine-started'],
  'await-approval': [],
  resume: [],
  finish: [
    'stamp-finished',
    'close-steps',
    'revoke-engine-token',
    'queue-stop-tasks',
    'publish-end',
    'schedule',
  ],
};

/** The moves a build in `status` may make. */
export function transitionsFrom(status: BuildStatus): readonly BuildTransition[] {
  switch (status) {
    case 'pending':
      return ['elect', 'start', 'finish'];
    case 'elected':
      return ['start', 'finish'];
    case 'running':
      return ['await-approval', 'finish'];
    case 'pending-approval':
      return ['resume', 'finish'];
    case 'success':
    case 'failure':
    case 'terminated':
    case 'error':
      return [];
  }
}

/** The statuses `transition` may leave: the store's conditional updates are written with it. */
export function sourcesOf(transition: BuildTransition): BuildStatus[] {
  return BuildStatus.options.filter((status) => transitionsFrom(status).includes(transition));
}

/** The statuses `transition` may reach. */
export function targetsOf(transition: BuildTransition): readonly BuildStatus[] {
  return TARGETS[transition];
}

/** What `transition` must also do. */
export function effectsOf(transition: BuildTransition): readonly BuildEffect[] {
  return EFFECTS[transition];
}

/**
 * The move from `from` to `to` and its effects. A move the table refuses is our own bug (the
 * store's writes only ask for allowed moves), so it is an internal error naming both statuses.
 */
export function transition(
  from: BuildStatus,
  to: BuildStatus,
): { transition: BuildTransition; effects: readonly BuildEffect[] } {
  const move = transitionsFrom(from).find((t) => TARGETS[t].includes(to));
  if (move === undefined)
    throw new InternalError(
      'SLUICE_INTERNAL',
      `Build status "${to}" cannot follow "${from}" (allowed after "${from}": ${
        allowedAfter(from).join(', ') || 'none, it is final'
      })`,
    );
  return { transition: move, effects: EFFECTS[move] };
}

function allowedAfter(from: BuildStatus): BuildStatus[] {
  return [...new Set(transitionsFrom(from).flatMap((t) => TARGETS[t]))];
}
