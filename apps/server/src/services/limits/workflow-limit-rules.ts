/**
 * The runtime's `workflowLimits` as one pure decision per active build: given when things
 * happened to it (server time) and the limits of its runtime, what the control plane does now.
 * `finish` ends the build at once (its engine never started, or cannot be reached, or did not
 * stop when asked); `stop` asks a running engine to stop through the control channel, as a
 * cancel does, so it stops its containers and reports the end itself; `unhealthy` and
 * `healthy` only mark the build. A limit of 0 is off. The pass that applies it is
 * `workflow-limits.ts`; docs/runtime-limits.md lists each limit and its reason text.
 * @module
 */
import type { WorkflowLimits } from '@sluice/runtime-spec';

export type ActiveStatus = 'elected' | 'running' | 'pending-approval';
export type StopStatus = 'terminated' | 'error';

/** What the limits read about one build; times in ms since the epoch, server clock. */
export interface BuildClocks {
  status: ActiveStatus;
  createdAt: number;
  /** When the scheduler handed it to its runtime. */
  electedAt: number;
  /** The engine's `build-started`. */
  engineStartedAt: number | null;
  /** Any report from the engine: an event or a heartbeat. */
  lastReportAt: number | null;
  /** The last log line or event: what the build last showed. */
  lastOutputAt: number | null;
  stepStarted: boolean;
  postStepsStartedAt: number | null;
  stop: { requestedAt: number; status: StopStatus | null; reason: string | null } | null;
  /** The build carries the unhealthy mark. */
  unhealthy: boolean;
  /**
   * Since when this control plane could have heard from the engine (its start, or the database
   * coming back): silence before it is the control plane's outage, not the engine's.
   */
  listeningSince: number;
}

export type LimitAction =
  | { kind: 'finish'; status: StopStatus; reason: string }
  | { kind: 'stop'; status: StopStatus; reason: string }
  | { kind: 'unhealthy'; reason: string }
  | { kind: 'healthy' };

export type LimitName = keyof WorkflowLimits;

/** Marks the reason of a build that is marked unhealthy, so the mark can be lifted. */
export const UNHEALTHY_PREFIX = 'unhealthy: ';

/** The reason text of a limit: what happened, its value and its name. */
export function limitReason(name: LimitName, value: number): string {
  switch (name) {
    case 'MAXIMUM_ELECTED_STATE_AGE_ALLOWED':
      return `stopped: the engine did not start within ${value} s of the build being handed to its runtime (${name})`;
    case 'MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS':
      return `stopped: no step started within ${value} s of the engine starting (${name})`;
    case 'MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION':
      return `stopped: the build reached the maximum age of ${value} s (${name})`;
    case 'TIME_INACTIVE_UNTIL_TERMINATION':
      return `stopped: no log output for ${value} s (${name})`;
    case 'TIME_ENGINE_INACTIVE_UNTIL_TERMINATION':
      return `stopped: no report from the engine for ${value} s (${name})`;
    case 'TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY':
      return `${UNHEALTHY_PREFIX}no report from the engine for ${value} s (${name})`;
    case 'MAXIMUM_TERMINATING_STATE_AGE_ALLOWED':
      return `stopped: the build was still terminating after ${value} s (${name})`;
    case 'MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE':
      return `stopped: no update from the terminating build for ${value} s (${name})`;
    case 'MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES':
      return `stopped: the post-steps (pipeline hooks) ran longer than ${value} min (${name})`;
    case 'MAXIMUM_RETRY_ATTEMPTS_ALLOWED':
      return `stopped: restarted ${value} times (${name})`;
  }
}

/**
 * The youngest an elected build can be and still be over a limit, in ms: the smallest limit on
 * its age (`MAXIMUM_ELECTED_STATE_AGE_ALLOWED`, or `MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION`
 * since it was created) among every set of limits a runtime can have. A build is elected after it
 * is created, so both clocks run at least as long as its age: an elected build younger than this
 * needs nothing, and a pass does not read it (a queue of thousands waiting for an agent would
 * otherwise be read whole every pass). `undefined` when every such limit is off.
 */
export function electedAgeBeforeAnyLimit(limitSets: readonly WorkflowLimits[]): number | undefined {
  const ages = limitSets
    .flatMap((limits) => [
      limits.MAXIMUM_ELECTED_STATE_AGE_ALLOWED,
      limits.MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION,
    ])
    .filter((value): value is number => value !== undefined && value > 0);
  return ages.length === 0 ? undefined : Math.min(...ages) * 1000;
}

/** What to do about `build` at `now` under `limits` (every key set); undefined: nothing. */
export function decideLimits(
  build: BuildClocks,
  limits: Required<WorkflowLimits>,
  now: number,
): LimitAction | undefined {
  // Over limit `name` since `since`: `since` older than its value (seconds; 0 is off).
  const over = (name: LimitName, since: number | null, unitMs = 1000): boolean => {
    const value = limits[name];
    return value > 0 && since !== null && now - since > value * unitMs;
  };
  const reason = (name: LimitName) => limitReason(name, limits[name]);
  const finish = (name: LimitName, status: StopStatus): LimitAction => ({
    kind: 'finish',
    status,
    reason: reason(name),
  });
  const stop = (name: LimitName, status: StopStatus): LimitAction => ({
    kind: 'stop',
    status,
    reason: reason(name),
  });

  if (build.status === 'elected') {
    if (over('MAXIMUM_ELECTED_STATE_AGE_ALLOWED', build.electedAt))
      return finish('MAXIMUM_ELECTED_STATE_AGE_ALLOWED', 'error');
    if (over('MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION', build.createdAt))
      return finish('MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION', 'terminated');
    return undefined;
  }
  // The engine started: it reports; when it stops reporting it cannot be asked to stop either.
  const reported = Math.max(
    build.lastReportAt ?? build.engineStartedAt ?? build.electedAt,
    build.listeningSince,
  );
  if (over('TIME_ENGINE_INACTIVE_UNTIL_TERMINATION', reported))
    return finish('TIME_ENGINE_INACTIVE_UNTIL_TERMINATION', 'error');
  if (build.stop !== null) return terminating(build, build.stop, { over, reason });
  if (over('MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION', build.createdAt))
    return stop('MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION', 'terminated');
  if (
    !build.stepStarted &&
    over('MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS', build.engineStartedAt)
  )
    return stop('MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS', 'error');
  // Waiting for a person to approve is not inactivity.
  const output = Math.max(
    build.lastOutputAt ?? 0,
    build.engineStartedAt ?? 0,
    build.listeningSince,
  );
  if (build.status === 'running' && over('TIME_INACTIVE_UNTIL_TERMINATION', output))
    return stop('TIME_INACTIVE_UNTIL_TERMINATION', 'terminated');
  if (over('MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES', build.postStepsStartedAt, 60_000))
    return stop('MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES', 'terminated');
  const silent = over('TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY', reported);
  if (silent && !build.unhealthy)
    return { kind: 'unhealthy', reason: reason('TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY') };
  if (!silent && build.unhealthy) return { kind: 'healthy' };
  return undefined;
}

/** A build asked to stop that has not: ended by the control plane, keeping why it was stopped. */
function terminating(
  build: BuildClocks,
  stop: NonNullable<BuildClocks['stop']>,
  rules: {
    over: (name: LimitName, since: number | null) => boolean;
    reason: (name: LimitName) => string;
  },
): LimitAction | undefined {
  const updated = Math.max(stop.requestedAt, build.lastOutputAt ?? 0, build.listeningSince);
  const name: LimitName | undefined = rules.over(
    'MAXIMUM_TERMINATING_STATE_AGE_ALLOWED',
    stop.requestedAt,
  )
    ? 'MAXIMUM_TERMINATING_STATE_AGE_ALLOWED'
    : rules.over('MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE', updated)
      ? 'MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE'
      : undefined;
  if (name === undefined) return undefined;
  const why = stop.reason ?? 'The build was cancelled';
  return {
    kind: 'finish',
    status: stop.status ?? 'terminated',
    reason: `${why}; ${rules.reason(name)}`,
  };
}
