// A build's timing record (`Build.timing`, the build page's waterfall) as phases, for the
// benchmarks that time builds: each phase is [name, from field, to field].
export const START_PHASES = [
  ['queued_to_elected_s', 'queuedAt', 'electedAt'],
  ['elected_to_dispatched_s', 'electedAt', 'dispatchedAt'],
  ['dispatched_to_objects_s', 'dispatchedAt', 'objectsCreatedAt'],
  ['objects_to_engine_s', 'objectsCreatedAt', 'engineStartedAt'],
  ['engine_to_first_step_s', 'engineStartedAt', 'firstStepStartedAt'],
];
export const BUILD_PHASES = [
  ...START_PHASES,
  ['first_step_to_finished_s', 'firstStepStartedAt', 'finishedAt'],
];

/** Milliseconds between two RFC 3339 times; NaN when either is missing. */
export const between = (from, to) => (from && to ? Date.parse(to) - Date.parse(from) : NaN);
